import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run's estimate from its recent pace (docs/ingestion.md, "Progress and estimate"):
 * - `bytesStreamed`: bytes received while downloading, counted as they arrive (a big file's bytes show
 *   before its batch commits; `bytesDownloaded` counts stored bytes at the commit);
 * - `pace`: the last two samples of the run's work done, `{prev, last}` each `{at, work}`, taken when the
 *   run is read at most every few seconds, so the estimate measures the recent rate, not the whole run's.
 */
export class RunPace1795300057000 implements MigrationInterface {
  name = 'RunPace1795300057000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE connector.sync_runs ADD COLUMN "bytesStreamed" bigint NOT NULL DEFAULT 0, ADD COLUMN pace jsonb`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.sync_runs DROP COLUMN "bytesStreamed", DROP COLUMN pace`);
  }
}
