import { Logger } from '@nestjs/common';
import { OutageRider } from './outage-rider';
import { Transaction, Transactions } from './transaction';

/** What a relay needs of its outbox's repository. */
export interface OutboxTable<Row> {
  /**
   * Up to `limit` unpublished rows older than `minAgeMs`, oldest first, locked until `transaction` ends;
   * rows another relay holds are skipped (FOR UPDATE SKIP LOCKED).
   */
  claimLeftovers(transaction: Transaction, limit: number, minAgeMs: number): Promise<Row[]>;
  /** Marks claimed rows published, in the transaction that claimed them. */
  markLeftoversPublished(transaction: Transaction, rows: Row[]): Promise<void>;
}

export interface OutboxRelayOptions<Row> {
  /** Names the relay in its log lines. */
  name: string;
  table: OutboxTable<Row>;
  transactions: Transactions;
  /** Publishes a batch; throws when it could not (the batch stays unpublished). */
  publish(rows: Row[]): Promise<void>;
  batch: number;
  /** Rows younger than this are left to the writer that is publishing them right now. */
  leftoverAgeMs: number;
  /** With it, a pass that meets an outage is logged once per outage, not once per pass. */
  outage?: OutageRider;
}

/**
 * What every outbox relay does for the rows a writer left unpublished (it crashed between its commit and
 * its publish): claim a batch with SKIP LOCKED, publish it, mark it, in one transaction, until a batch
 * comes back short. One pass at a time per process; several processes share the rows. A row published
 * twice (by its writer, then here) is harmless: its stable job id makes the second publish a no-op.
 */
export class OutboxLeftovers<Row> {
  private readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private passing = false;

  constructor(private readonly options: OutboxRelayOptions<Row>) {
    this.logger = new Logger(options.name);
  }

  /** Relays now, then every `everyMs` (worker processes). */
  poll(everyMs: number): void {
    this.stop();
    this.timer = setInterval(() => void this.relay(), everyMs);
    this.timer.unref();
    void this.relay();
  }

  /** One pass over the leftovers; a pass already running in this process makes it a no-op. */
  async relay(): Promise<void> {
    if (this.passing) return;
    this.passing = true;
    const started = Date.now();
    try {
      while ((await this.relayBatch()) === this.options.batch);
      this.options.outage?.recovered();
    } catch (error) {
      // The next pass tries again; an outage is logged by the rider, once.
      if (!this.options.outage?.report(error, started))
        this.logger.warn({ error: (error as Error).message }, `${this.options.name} pass failed`);
    } finally {
      this.passing = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private relayBatch(): Promise<number> {
    const { table, transactions, publish, batch, leftoverAgeMs } = this.options;
    return transactions.run(async (transaction) => {
      const rows = await table.claimLeftovers(transaction, batch, leftoverAgeMs);
      if (!rows.length) return 0;
      await publish(rows);
      await table.markLeftoversPublished(transaction, rows);
      return rows.length;
    });
  }
}
