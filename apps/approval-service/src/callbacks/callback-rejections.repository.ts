import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** How many wrong-token callbacks an approval's log keeps; the rest are only counted. */
export const MAX_LOGGED_REJECTIONS = 20;

/** One wrong-token callback: why, and how long before the write it came. */
export interface Rejection {
  error: string;
  ageMs: number;
}

@Injectable()
export class CallbackRejectionsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Counts `count` wrong-token callbacks and logs those of `logged` (the first ones, in the order they came)
   * that fit under MAX_LOGGED_REJECTIONS, in one statement: the row lock orders concurrent writes, so exactly
   * the first ones are logged, each at the database's time less its age. The approval's status and
   * updatedAt stay as they are.
   */
  async record(approvalId: string, count: number, logged: Rejection[]): Promise<void> {
    await this.db.query(
      `WITH counted AS (
         UPDATE approval.approvals SET "rejectedCallbacks" = "rejectedCallbacks" + $2 WHERE id = $1
         RETURNING "rejectedCallbacks" - $2 AS before)
       INSERT INTO approval.approval_log ("approvalId", at, type, error)
       SELECT $1, clock_timestamp() - make_interval(secs => r.age / 1000), 'CallbackRejected', r.error
       FROM counted, unnest($3::float8[], $4::text[]) WITH ORDINALITY AS r(age, error, n)
       WHERE counted.before + r.n <= $5`,
      [approvalId, count, logged.map((r) => r.ageMs), logged.map((r) => r.error), MAX_LOGGED_REJECTIONS],
    );
  }
}
