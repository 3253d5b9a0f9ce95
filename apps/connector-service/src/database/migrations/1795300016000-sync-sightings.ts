import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The documents a run saw listed, kept beside the run instead of stamped on each document row. Stamping
 * rewrote every wide document row (text, search vectors) on every run, and a row without room left on its
 * page got a new copy with entries in every GIN index: an incremental run with nothing changed paid for
 * it. A sighting is a narrow insert; the run's sightings go when it ends.
 */
export class SyncSightings1795300016000 implements MigrationInterface {
  name = 'SyncSightings1795300016000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE connector.sync_sightings (
      "syncRunId" uuid NOT NULL REFERENCES connector.sync_runs(id) ON DELETE CASCADE,
      "externalId" text NOT NULL,
      PRIMARY KEY ("syncRunId", "externalId")
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE connector.sync_sightings`);
  }
}
