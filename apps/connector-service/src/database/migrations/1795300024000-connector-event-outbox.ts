import { MigrationInterface, QueryRunner } from 'typeorm';

/** Events to the agent runtime, written in the transaction that causes them and relayed to `connector-events`. */
export class ConnectorEventOutbox1795300024000 implements MigrationInterface {
  name = 'ConnectorEventOutbox1795300024000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE connector.connector_event_outbox (
      "eventId" text PRIMARY KEY,
      type text NOT NULL,
      payload jsonb NOT NULL,
      "createdAt" timestamptz NOT NULL DEFAULT now(),
      "publishedAt" timestamptz
    )`);
    await q.query(
      `CREATE INDEX connector_event_outbox_unpublished ON connector.connector_event_outbox ("createdAt") WHERE "publishedAt" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE connector.connector_event_outbox');
  }
}
