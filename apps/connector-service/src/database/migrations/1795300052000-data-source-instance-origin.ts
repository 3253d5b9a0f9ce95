import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A data source records the origin of its credential's instanceUrl that its creator chose: its
 * creator's tokens go to that origin only. Existing ones take the origin their credential has now.
 */
export class DataSourceInstanceOrigin1795300052000 implements MigrationInterface {
  name = 'DataSourceInstanceOrigin1795300052000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.data_sources ADD COLUMN "instanceOrigin" text`);
    const credentials: Array<{ id: string; instanceUrl: string }> = await q.query(
      `SELECT DISTINCT c.id, c."instanceUrl" FROM connector.credentials c
       JOIN connector.data_sources ds ON ds."credentialId" = c.id`,
    );
    // The origin as URL parsing gives it (lower-case host, no default port), as the check compares it.
    const originOf = (url: string) => (URL.canParse(url) ? new URL(url).origin : url);
    if (credentials.length)
      await q.query(
        `UPDATE connector.data_sources ds SET "instanceOrigin" = o.origin
         FROM unnest($1::uuid[], $2::text[]) AS o(id, origin) WHERE ds."credentialId" = o.id`,
        [credentials.map((c) => c.id), credentials.map((c) => originOf(c.instanceUrl))],
      );
    await q.query(`ALTER TABLE connector.data_sources ALTER COLUMN "instanceOrigin" SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector.data_sources DROP COLUMN "instanceOrigin"`);
  }
}
