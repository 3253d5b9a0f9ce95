import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { managerOf, Transaction } from '@app/database';

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
   * Moves a due schedule to its next time; false when it is not due (another sweep moved it). In the transaction that
   * stores its run, so that the run and the move commit together: moved before, an outage between the two would lose
   * the sync for a whole interval; moved after, a sweep that read the schedule as due before another moved it would
   * start it again once that run ended. Alone, it moves the schedule of a start that was refused.
   */
  async advance(dataSourceId: string, transaction?: Transaction): Promise<boolean> {
    const [, moved]: [unknown, number] = await (transaction ? managerOf(transaction) : this.db.manager).query(
      `UPDATE connector.data_sources SET "nextScheduledSyncAt" = now() + make_interval(mins => "scheduleIntervalMinutes")
       WHERE id = $1 AND "nextScheduledSyncAt" <= now() AND "scheduleIntervalMinutes" IS NOT NULL`,
      [dataSourceId],
    );
    return moved > 0;
  }
}
