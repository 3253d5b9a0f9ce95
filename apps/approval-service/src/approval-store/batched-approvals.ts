import { Injectable } from '@nestjs/common';
import type { ApprovalDecisionEvent } from '@app/contracts/payloads';
import { OutageRider } from '@app/database';
import { StatementBatcher } from '../database/statement-batcher';
import type {
  AttemptRecord,
  AttemptToRecord,
  CallbackView,
  DecidedApproval,
  DecisionMove,
  DeliveryView,
  LogEntry,
  NewApproval,
} from './approval-rows';
import type { DecisionStatus } from './approval-state';
import { ApprovalsRepository } from './approvals.repository';
import { DecisionsRepository } from './decisions.repository';
import { decisionEvent } from './decision-event';

/**
 * A final move as its caller sees it: the approval as decided, and the event to publish. `published` is set
 * when the move's first run committed unheard and a relay has published its event since: nothing to publish.
 */
export type Decided = DecidedApproval & { event: ApprovalDecisionEvent; published?: boolean };

/** A person's moves: when one's statement committed but its reply was lost, its author is answered as on a first success. */
const ANSWERED_AGAIN: readonly DecisionStatus[] = ['Approved', 'Denied', 'Cancelled'];

/**
 * How long a batched statement waits out an outage before its callers see the error (an HTTP caller waits
 * this long): an outage of up to a minute, or two restarts close together, fails no request or callback.
 */
const HOLD_STATEMENTS_MS = 60_000;
const MAX_BATCH = 100;

/**
 * The hot paths (request, attempt, callback lookup, decision): the calls that arrive together share one
 * statement (StatementBatcher), so one round trip and one commit serve many approvals.
 */
@Injectable()
export class BatchedApprovals {
  constructor(
    private readonly approvals: ApprovalsRepository,
    private readonly decisionStatements: DecisionsRepository,
    private readonly outage: OutageRider,
  ) {}

  // A statement that meets a short outage waits for the database instead of failing its callers; a
  // replayed batch is safe: each statement reports what was done already (inserted, logged, decided) as not done now.
  private readonly hold = <T>(run: () => Promise<T>) => this.outage.ride(run, HOLD_STATEMENTS_MS);
  private readonly inserts = this.batcher((batch: NewApproval[]) => this.approvals.insertRequested(batch));
  private readonly attempts = this.batcher((batch: AttemptToRecord[]) => this.approvals.recordAttempts(batch));
  private readonly decisions = this.batcher((batch: DecisionMove[]) => this.decideBatch(batch));
  private readonly callbackLookups = this.batcher((ids: string[]) => this.approvals.forCallbacks(ids));
  /** The moves whose statement has been sent: one sent again may have committed unheard the first time. */
  private readonly sent = new WeakSet<DecisionMove>();

  /** Inserts a Pending approval with its Requested entry, as its first attempt sees it; null when (tenant, execution, step) exists. */
  insertRequested(approval: NewApproval): Promise<DeliveryView | null> {
    return this.inserts.submit(approval);
  }

  /** Logs a delivery attempt once; a 2xx moves Pending → AwaitingDecision. False if the attempt was logged already. */
  recordAttempt(id: string, attempt: number, result: AttemptRecord): Promise<boolean> {
    return this.attempts.submit({ id, attempt, ...result });
  }

  /**
   * A final move with its log entry and its outbox row, in one statement: either all happen or none; the
   * event to publish is built from the decided row. Null when the approval was not open; of several moves of one approval in a batch, exactly one wins.
   */
  decide(
    id: string,
    to: DecisionStatus,
    entry: LogEntry,
    output: Record<string, unknown> | null = null,
  ): Promise<Decided | null> {
    return this.decisions.submit({ id, to, entry, output });
  }

  /** The approval as a callback sees it, read now. */
  forCallback(callbackId: string): Promise<CallbackView | null> {
    return this.callbackLookups.submit(callbackId);
  }

  /**
   * A person's move sent again after its connection dropped finds its approval decided, perhaps by its own first
   * run: recorded exactly as it asked (status, comment, decidedBy, output), it is answered as that first run would
   * have been. Its outbox row was written with it, so its event still goes out once.
   */
  private async decideBatch(batch: DecisionMove[]): Promise<Array<Decided | null>> {
    const resent = batch.map((move) => this.sent.has(move) && ANSWERED_AGAIN.includes(move.to));
    batch.forEach((move) => this.sent.add(move));
    const moved: Array<DecidedApproval | (DecidedApproval & { published: boolean }) | null> =
      await this.decisionStatements.decide(batch);
    const unheard = batch.filter((_, i) => resent[i] && !moved[i]);
    if (unheard.length) {
      const recorded = await this.decisionStatements.recordedAs(unheard);
      unheard.forEach((move, j) => (moved[batch.indexOf(move)] = recorded[j]));
    }
    return moved.map((row) => row && { ...row, event: decisionEvent(row) });
  }

  private batcher<I, O>(run: (batch: I[]) => Promise<O[]>): StatementBatcher<I, O> {
    return new StatementBatcher(run, MAX_BATCH, this.hold);
  }
}
