import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** How many wrong-token callbacks an approval's log keeps; the rest are only counted. */
export const MAX_LOGGED_REJECTIONS = 20;

@Injectable()
export class CallbackRejectionsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Counts a wrong-token callback and logs it while fewer than MAX_LOGGED_REJECTIONS are logged, in one
   * statement: the row lock orders concurrent rejections, so exactly the first ones are logged.
   * The approval's status and updatedAt stay as they are.
   */
  async record(approvalId: string, error: string): Promise<void> {
    await this.db.query(
      `WITH counted AS (
         UPDATE approval.approvals SET "rejectedCallbacks" = "rejectedCallbacks" + 1 WHERE id = $1 RETURNING "rejectedCallbacks")
       INSERT INTO approval.approval_log ("approvalId", at, type, error)
       SELECT $1, clock_timestamp(), 'CallbackRejected', $2 FROM counted WHERE "rejectedCallbacks" <= $3`,
      [approvalId, error, MAX_LOGGED_REJECTIONS],
    );
  }
}
