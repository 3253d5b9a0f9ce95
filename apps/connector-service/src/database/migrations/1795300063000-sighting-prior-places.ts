import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run's sighting of a file also says where its document was before the run moved it (null when the run did
 * not move it). A document system may list one file in two folders: the run takes the file at its first
 * listing, and a later listing at the document's earlier place puts it back there (docs/ingestion.md), so a
 * run with nothing changed finds it unchanged whichever folder it lists first. Nullable columns: nothing is
 * rewritten.
 */
export class SightingPriorPlaces1795300063000 implements MigrationInterface {
  name = 'SightingPriorPlaces1795300063000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.sync_sightings ADD COLUMN "priorFolderId" text, ADD COLUMN "priorPath" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.sync_sightings DROP COLUMN "priorFolderId", DROP COLUMN "priorPath"`);
  }
}
