import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The data sources' sync schedules (`scheduleIntervalMinutes`, `nextScheduledSyncAt`). */
@Injectable()
export class SyncScheduleRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Claims the schedule slots that are due and moves each to its next time; returns the data sources
   * whose sync is due. A conditional update: one worker claims each slot.
   */
  async claimDue(): Promise<string[]> {
    const [due]: [Array<{ id: string }>, number] = await this.db.query(
      `UPDATE connector.data_sources SET "nextScheduledSyncAt" = now() + make_interval(mins => "scheduleIntervalMinutes")
       WHERE "nextScheduledSyncAt" <= now() AND "scheduleIntervalMinutes" IS NOT NULL RETURNING id`,
    );
    return due.map((row) => row.id);
  }
}
