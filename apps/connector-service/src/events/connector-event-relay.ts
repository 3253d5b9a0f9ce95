import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bull';
import { SharedQueue } from '@app/contracts/payloads';
import { OutboxLeftovers, Transactions } from '@app/database';
import { addedWithin, addJobs } from '@app/queue';
import { ConnectorEvent } from './connector-event';
import { ConnectorEventsRepository } from './connector-events.repository';

const BATCH = 100;
/** Rows younger than this are left to the writer that is publishing them right now. */
const LEFTOVER_AGE_MS = 2000;
/** Completed events kept in Redis: enough for the job id to turn a late second publish into a no-op. */
const KEEP_COMPLETED = 1000;

/**
 * Publishes outbox events to `connector-events`. The writer publishes its events at once after its
 * commit; a poller publishes what a crashed writer left. The stable job id makes a second publish of
 * the same event a no-op in Bull.
 */
@Injectable()
export class ConnectorEventRelay implements OnModuleDestroy {
  private readonly logger = new Logger(ConnectorEventRelay.name);
  private readonly leftovers: OutboxLeftovers<ConnectorEvent>;

  constructor(
    private readonly outbox: ConnectorEventsRepository,
    transactions: Transactions,
    @InjectQueue(SharedQueue.ConnectorEvents) private readonly queue: Queue,
  ) {
    this.leftovers = new OutboxLeftovers({
      name: 'connector event relay',
      table: outbox,
      transactions,
      publish: (events) => this.add(events),
      batch: BATCH,
      leftoverAgeMs: LEFTOVER_AGE_MS,
    });
  }

  /**
   * Publishes committed events now; on failure they stay in the outbox for the poller. Redis is waited for at most
   * JOB_ADD_DEADLINE_MS: a run's cancel or a selection's emptying answers through a Redis outage (the add may
   * still land once Redis is back; the poller's is then a no-op).
   */
  async publish(...events: ConnectorEvent[]): Promise<void> {
    try {
      await addedWithin(this.add(events));
      await this.outbox.markPublished(events.map((e) => e.eventId));
    } catch (error) {
      this.logger.warn(
        { eventIds: events.map((e) => e.eventId), error: (error as Error).message },
        'connector event left for the relay',
      );
    }
  }

  /** Relays what crashed writers left, now and then every `everyMs` (worker processes). */
  poll(everyMs: number): void {
    this.leftovers.poll(everyMs);
  }

  onModuleDestroy(): void {
    this.leftovers.stop();
  }

  private async add(events: ConnectorEvent[]): Promise<void> {
    await addJobs(
      this.queue,
      events.map((e) => ({
        name: e.type,
        data: e.payload,
        opts: { jobId: e.eventId, removeOnComplete: KEEP_COMPLETED },
      })),
    );
  }
}
