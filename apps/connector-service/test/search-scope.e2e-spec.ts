import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';

/**
 * Search finds only the documents of the data sources the caller may read in the project asked for, by
 * every way it finds them (opening, first 10,000 characters, deep chunks, name, look-alike name), whether
 * the caller reads the whole project (one statement, planned once per connection) or part of it (planned
 * with the values). The corpus is written straight into the tables, as extraction would leave it.
 */
describe('Search scope', () => {
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let memberOfAll: TestCaller;
  let memberOfOne: TestCaller;
  const projectId = randomUUID();
  const otherProjectId = randomUUID();
  const filler = 'General requirements apply to every trade on the site. '.repeat(60); // about 3,400 characters
  const http = () => request(sut.app.getHttpServer());
  const names = async (caller: TestCaller, query: Record<string, string>, project = projectId) => {
    const res = await http().get(`/v1/projects/${project}/search`).query(query).set(caller.auth).expect(200);
    return res.body.hits.map((hit: { name: string }) => hit.name).sort();
  };

  beforeAll(async () => {
    sut = await startConnectorApp({}, 'api');
    admin = await testCaller({ roles: ['admin'] });
    memberOfAll = await testCaller({ tenantId: admin.tenantId });
    memberOfOne = await testCaller({ tenantId: admin.tenantId });
    const a1 = await seedDataSource(admin.tenantId, projectId, 'A1', [memberOfAll, memberOfOne]);
    const a2 = await seedDataSource(admin.tenantId, projectId, 'A2', [memberOfAll]);
    await seedDataSource(admin.tenantId, otherProjectId, 'B1', [memberOfAll, memberOfOne]);
    await seedDataSource(randomUUID(), projectId, 'T2', []); // another tenant's, under the same project id
    sources = { a1, a2 };
  });
  afterAll(() => sut.close());

  let sources: { a1: string; a2: string };
  const found = (...labels: string[]) =>
    labels.flatMap((label) => ['Opening', 'Body', 'Deep', 'Grout schedule'].map((way) => `${way} ${label}.md`)).sort();

  async function seedDataSource(tenantId: string, project: string, label: string, members: TestCaller[]) {
    const credentialId = randomUUID();
    const dataSourceId = randomUUID();
    await sut.db.query(
      `INSERT INTO connector.credentials (id, "tenantId", name, type, "instanceUrl", username, "passwordEncrypted", scope, "createdBy")
       VALUES ($1, $2, 'Seeded', 'DocumentSystem', 'http://127.0.0.1:1', 'seed', 'not-a-secret', 'Tenant', 'seed')`,
      [credentialId, tenantId],
    );
    await sut.db.query(
      `INSERT INTO connector.data_sources (id, "tenantId", "projectId", name, "credentialId", "connectionId", "ingestionStatus", "createdBy")
       VALUES ($1, $2, $3, $4, $5, $6, 'Synced', 'seed')`,
      [dataSourceId, tenantId, project, label, credentialId, randomUUID()],
    );
    for (const member of members)
      await sut.db.query(
        `INSERT INTO connector.data_source_members ("dataSourceId", "userId", "addedBy") VALUES ($1, $2, 'seed')`,
        [dataSourceId, member.userId],
      );
    const documents: Array<[string, string, string | null]> = [
      [`Opening ${label}.md`, `Grout mix and grout placing.\n${filler}`, null],
      [`Body ${label}.md`, `${filler}\nThe grout was placed today.`, null],
      [`Deep ${label}.md`, filler, 'Past the first ten thousand characters the grout cured.'],
      [`Grout schedule ${label}.md`, filler, null],
    ];
    for (const [name, text, deepChunk] of documents) {
      const [{ id }] = await sut.db.query(
        `INSERT INTO connector.documents (id, "tenantId", "dataSourceId", "externalId", "folderId", name, path, "mimeType", size, "contentSha256", "extractionStatus", text, "lastSeenRunId")
         VALUES (gen_random_uuid(), $1, $2, $3, 'f', $3, '/' || $4 || '/' || $3, 'text/markdown', length($5), md5($5), 'Succeeded', $5, gen_random_uuid())
         RETURNING id`,
        [tenantId, dataSourceId, name, label, text],
      );
      if (deepChunk)
        await sut.db.query(
          `INSERT INTO connector.document_chunks ("documentId", "dataSourceId", index, text) VALUES ($1, $2, 8, $3)`,
          [id, dataSourceId, deepChunk],
        );
    }
    return dataSourceId;
  }

  it("finds the whole project's documents by every way, and none of another project or tenant", async () => {
    expect(await names(admin, { q: 'grout' })).toEqual(found('A1', 'A2'));
    expect(await names(memberOfAll, { q: 'grout' })).toEqual(found('A1', 'A2'));
    expect(await names(admin, { q: 'grout' }, otherProjectId)).toEqual(found('B1'));
  });

  it("finds names that merely look alike only in the project's data sources", async () => {
    expect(await names(admin, { q: 'schedul' })).toEqual(['Grout schedule A1.md', 'Grout schedule A2.md']);
    expect(await names(admin, { q: 'grout schedle' })).toEqual(['Grout schedule A1.md', 'Grout schedule A2.md']);
  });

  it('finds only the data sources a member may read, one asked for, or under a path prefix', async () => {
    expect(await names(memberOfOne, { q: 'grout' })).toEqual(found('A1'));
    expect(await names(admin, { q: 'grout', dataSourceId: sources.a2 })).toEqual(found('A2'));
    expect(await names(memberOfAll, { q: 'grout', pathPrefix: '/A2/' })).toEqual(found('A2'));
  });

  it('answers the same every time, once the statement is planned without the values', async () => {
    // PostgreSQL plans a named statement with its values five times before it may keep a generic plan.
    for (let i = 0; i < 8; i++) expect(await names(admin, { q: 'grout' })).toEqual(found('A1', 'A2'));
  });
});
