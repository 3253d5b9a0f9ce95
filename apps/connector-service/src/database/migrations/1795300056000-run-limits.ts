import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Run limits (CONTRACT.md, "Fair share and limits"): the limit a run reached (`SYNC_MAX_FILES (…)`,
 * `SYNC_MAX_BYTES (…)`, `SYNC_MAX_DEPTH (…)`), null while it reached none, and whether its listing stopped
 * (files or bytes; the depth limit only leaves the deeper folders out). A run with a limit reached deletes nothing.
 */
export class RunLimits1795300056000 implements MigrationInterface {
  name = 'RunLimits1795300056000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE connector.sync_runs ADD COLUMN "limitReached" text, ADD COLUMN "listingStopped" boolean NOT NULL DEFAULT false`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.sync_runs DROP COLUMN "limitReached", DROP COLUMN "listingStopped"`);
  }
}
