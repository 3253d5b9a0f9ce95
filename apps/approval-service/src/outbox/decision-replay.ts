import { Injectable, Logger } from '@nestjs/common';
import type { ApprovalDecisionEvent } from '@app/contracts/payloads';
import { DecisionOutboxRepository } from './decision-outbox.repository';
import { DecisionRelay, eventOf } from './decision-relay';

const PAGE = 200;

export interface ReplayRequest {
  /** Rows marked published at this time or later are replayed. */
  since: Date;
  /** One tenant's rows, or (null) every tenant's. */
  tenantId: string | null;
  /** Lists what would be replayed; publishes nothing. */
  dryRun: boolean;
}

export interface ReplayedEvent {
  event: ApprovalDecisionEvent;
  publishedAt: Date;
  /** Bull still holds its job: publishing it again is a no-op, so it is not published. */
  held: boolean;
}

export interface ReplayReport {
  found: number;
  added: number;
  held: number;
}

/**
 * After Redis lost its data, publishes again the decision events whose outbox rows had been marked published
 * since a time the operator names (docs/operating.md). Each goes out as it first did (same payload, built from
 * the decided approval, and jobId = approvalId), so one Bull still holds is not doubled; one the runtime had
 * consumed and Bull had removed would be delivered a second time, which is why this is an operator's command.
 */
@Injectable()
export class DecisionReplay {
  private readonly logger = new Logger(DecisionReplay.name);

  constructor(
    private readonly outbox: DecisionOutboxRepository,
    private readonly relay: DecisionRelay,
  ) {}

  /** Replays (or, on a dry run, lists) page by page; `seen` hears of each event found. */
  async replay(request: ReplayRequest, seen: (replayed: ReplayedEvent) => void): Promise<ReplayReport> {
    const report: ReplayReport = { found: 0, added: 0, held: 0 };
    let afterId = '';
    for (;;) {
      const rows = await this.outbox.publishedSince(request.since, request.tenantId, afterId, PAGE);
      if (!rows.length) break;
      afterId = rows[rows.length - 1].approvalId;
      const held = await this.relay.held(rows.map((row) => row.approvalId));
      const replayed = rows.map((row) => ({
        event: eventOf(row),
        publishedAt: row.publishedAt,
        held: held.has(row.approvalId),
      }));
      const toAdd = replayed.filter((one) => !one.held).map((one) => one.event);
      if (!request.dryRun && toAdd.length) {
        await this.relay.republish(toAdd);
        for (const event of toAdd)
          this.logger.log({ approvalId: event.approvalId, tenantId: event.tenantId }, 'decision event replayed');
      }
      replayed.forEach(seen);
      report.found += rows.length;
      report.added += toAdd.length;
      report.held += held.size;
      if (rows.length < PAGE) break;
    }
    // Warn: a replay may deliver a consumed decision again, so it should stand out in the service's log.
    this.logger.warn(
      { since: request.since.toISOString(), tenantId: request.tenantId, dryRun: request.dryRun, ...report },
      request.dryRun ? 'decision events to replay listed (dry run)' : 'decision events replayed',
    );
    return report;
  }
}
