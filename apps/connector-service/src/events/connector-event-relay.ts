import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Queue } from 'bull';
import { SharedQueue } from '@app/contracts/payloads';
import { addJobs } from '@app/queue';
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
  private timer?: NodeJS.Timeout;
  private polling = false;

  constructor(
    private readonly outbox: ConnectorEventsRepository,
    @InjectQueue(SharedQueue.ConnectorEvents) private readonly queue: Queue,
  ) {}

  /** Publishes committed events now; on failure they stay in the outbox for the poller. */
  async publish(...events: ConnectorEvent[]): Promise<void> {
    try {
      await this.add(events);
      await this.outbox.markPublished(events.map((e) => e.eventId));
    } catch (error) {
      this.logger.warn(
        { eventIds: events.map((e) => e.eventId), error: (error as Error).message },
        'connector event left for the relay',
      );
    }
  }

  /** Relays leftovers on a timer (worker processes). */
  poll(everyMs: number): void {
    this.timer = setInterval(() => void this.relayLeftovers(), everyMs);
    this.timer.unref();
  }

  async relayLeftovers(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      while ((await this.outbox.relayUnpublished(LEFTOVER_AGE_MS, BATCH, (events) => this.add(events))) === BATCH);
    } catch (error) {
      this.logger.warn({ error: (error as Error).message }, 'connector event relay pass failed');
    } finally {
      this.polling = false;
    }
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
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
