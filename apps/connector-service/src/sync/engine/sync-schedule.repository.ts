import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Due schedules looked at by one sweep; the rest wait for the next. */
const DUE_AT_ONCE = 500;

/** The data sources' sync schedules (`scheduleIntervalMinutes`, `nextScheduledSyncAt`). */
@Injectable()
export class SyncScheduleRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The data sources whose scheduled sync is due, the longest due first. */
  async due(limit = DUE_AT_ONCE): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT id FROM connector.data_sources
       WHERE "nextScheduledSyncAt" <= now() AND "scheduleIntervalMinutes" IS NOT NULL
       ORDER BY "nextScheduledSyncAt" LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Moves a due schedule to its next time, once its sync has started (or may not start): a schedule moved before
   * would lose its sync for a whole interval should the start fail (the database away). A no-op once moved.
   */
  async advance(dataSourceId: string): Promise<void> {
    await this.db.query(
      `UPDATE connector.data_sources SET "nextScheduledSyncAt" = now() + make_interval(mins => "scheduleIntervalMinutes")
       WHERE id = $1 AND "nextScheduledSyncAt" <= now() AND "scheduleIntervalMinutes" IS NOT NULL`,
      [dataSourceId],
    );
  }
}
