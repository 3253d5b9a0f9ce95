import { randomUUID } from 'node:crypto';
import { get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { MAX_WAITING_SEARCHES_PER_TENANT, SEARCH_SLOTS, SearchSlots } from '../src/search/search-slots';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';

/**
 * Search finds only the documents of the data sources the caller may read in the project asked for, by
 * every way it finds them (opening, first 10,000 characters, deep chunks, name, look-alike name), whether
 * the caller reads the whole project (one statement, planned once per connection) or part of it (planned
 * with the values); and what a query's characters mean to each way (wildcards, negated words, paging). The
 * corpus is written straight into the tables, as extraction would leave it.
 */
/** Far above any search here, so that only a search kept waiting runs past it. */
const SEARCH_TIMEOUT_MS = 5000;
const never = new Promise<never>(() => undefined);
const timeout = (ms: number, why: string) =>
  new Promise<never>((_, reject) => setTimeout(() => reject(new Error(why)), ms).unref());

describe('Search scope', () => {
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let memberOfAll: TestCaller;
  let memberOfOne: TestCaller;
  let otherTenantAdmin: TestCaller;
  const projectId = randomUUID();
  const otherProjectId = randomUUID();
  const filler = 'General requirements apply to every trade on the site. '.repeat(60); // about 3,400 characters
  const http = () => request(sut.app.getHttpServer());
  const names = async (caller: TestCaller, query: Record<string, string>, project = projectId) => {
    const res = await http().get(`/v1/projects/${project}/search`).query(query).set(caller.auth).expect(200);
    return res.body.hits.map((hit: { name: string }) => hit.name).sort();
  };

  beforeAll(async () => {
    sut = await startConnectorApp({ SEARCH_TIMEOUT_MS: SEARCH_TIMEOUT_MS }, 'api');
    admin = await testCaller({ roles: ['admin'] });
    memberOfAll = await testCaller({ tenantId: admin.tenantId });
    memberOfOne = await testCaller({ tenantId: admin.tenantId });
    const a1 = await seedDataSource(admin.tenantId, projectId, 'A1', [memberOfAll, memberOfOne]);
    const a2 = await seedDataSource(admin.tenantId, projectId, 'A2', [memberOfAll]);
    const b1 = await seedDataSource(admin.tenantId, otherProjectId, 'B1', [memberOfAll, memberOfOne]);
    otherTenantAdmin = await testCaller({ roles: ['admin'] });
    await seedDataSource(otherTenantAdmin.tenantId, projectId, 'T2', []); // another tenant's, under the same project id
    sources = { a1, a2, b1 };
  });
  afterAll(() => sut.close());

  let sources: { a1: string; a2: string; b1: string };
  const found = (...labels: string[]) =>
    labels.flatMap((label) => ['Opening', 'Body', 'Deep', 'Grout schedule'].map((way) => `${way} ${label}.md`)).sort();
  /** A document's name, its text and the text of its chunk past the first 10,000 characters (if any). */
  type SeededDocument = [name: string, text: string, deepChunk: string | null];
  const groutDocuments = (label: string): SeededDocument[] => [
    [`Opening ${label}.md`, `Grout mix and grout placing.\n${filler}`, null],
    [`Body ${label}.md`, `${filler}\nThe grout was placed today.`, null],
    [`Deep ${label}.md`, filler, 'Past the first ten thousand characters the grout cured.'],
    [`Grout schedule ${label}.md`, filler, null],
  ];
  /** A project of its own holding one data source of `documents`, which only the admin reads; its id. */
  const projectOf = async (documents: SeededDocument[]) => {
    const project = randomUUID();
    await seedDataSource(admin.tenantId, project, 'Own', [], documents);
    return project;
  };
  /** Every hit of `q`, in order, paging `limit` at a time. */
  const allPages = async (project: string, q: string, limit: number) => {
    const hits: string[] = [];
    let cursor: string | null = '0';
    while (cursor !== null) {
      const page: { hits: Array<{ name: string }>; nextCursor: string | null } = (
        await http().get(`/v1/projects/${project}/search`).query({ q, limit, cursor }).set(admin.auth).expect(200)
      ).body;
      hits.push(...page.hits.map((hit) => hit.name));
      cursor = page.nextCursor;
    }
    return hits;
  };

  async function seedDataSource(
    tenantId: string,
    project: string,
    label: string,
    members: TestCaller[],
    documents = groutDocuments(label),
  ) {
    const credentialId = randomUUID();
    const dataSourceId = randomUUID();
    await sut.db.query(
      `INSERT INTO connector.credentials (id, "tenantId", name, type, "instanceUrl", username, "passwordEncrypted", scope, "createdBy")
       VALUES ($1, $2, 'Seeded', 'DocumentSystem', 'http://127.0.0.1:1', 'seed', 'not-a-secret', 'Tenant', 'seed')`,
      [credentialId, tenantId],
    );
    await sut.db.query(
      `INSERT INTO connector.data_sources (id, "tenantId", "projectId", name, "credentialId", "connectionId", "ingestionStatus", "createdBy", "instanceOrigin")
       VALUES ($1, $2, $3, $4, $5, $6, 'Synced', 'seed', 'http://127.0.0.1:1')`,
      [dataSourceId, tenantId, project, label, credentialId, randomUUID()],
    );
    for (const member of members)
      await sut.db.query(
        `INSERT INTO connector.data_source_members ("dataSourceId", "userId", "addedBy") VALUES ($1, $2, 'seed')`,
        [dataSourceId, member.userId],
      );
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

  it('answers 404 DATA_SOURCE_NOT_FOUND for the search hits of a data source the caller may not read, or not in this project', async () => {
    const notFound = async (caller: TestCaller, dataSourceId: string) => {
      const res = await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: 'grout', dataSourceId })
        .set(caller.auth)
        .expect(404);
      expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'DATA_SOURCE_NOT_FOUND' });
    };
    await notFound(memberOfOne, sources.a2); // exists in the project, not a member
    await notFound(admin, sources.b1); // readable, but in another project
    await notFound(admin, randomUUID()); // does not exist
    expect(await names(memberOfOne, { q: 'grout', dataSourceId: sources.a1.toUpperCase() })).toEqual(found('A1'));
  });

  it("refuses a tenant's search past the running and waiting ones with 429 TOO_MANY_SEARCHES; another tenant's waits its turn", async () => {
    const search = (caller: TestCaller) =>
      http().get(`/v1/projects/${projectId}/search`).query({ q: 'grout' }).set(caller.auth);
    // Every search statement waits for this lock, so the first ones hold every slot and the rest queue.
    const lock = sut.db.createQueryRunner();
    await lock.startTransaction();
    await lock.query('LOCK TABLE connector.documents IN ACCESS EXCLUSIVE MODE');
    let unlocked = false;
    try {
      const burst = Array.from({ length: SEARCH_SLOTS + MAX_WAITING_SEARCHES_PER_TENANT + 1 }, () =>
        search(admin).then((res) => res),
      );
      // The refusal answers at once, and only once every other search of the burst is running or waiting.
      const refused = await Promise.race([
        ...burst.map((pending) => pending.then((res) => (res.status === 429 ? res : never))),
        timeout(15_000, 'no search of the burst was refused'),
      ]);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toMatchObject({ statusCode: 429, code: 'TOO_MANY_SEARCHES' });
      const otherTenant = search(otherTenantAdmin).then((res) => res);
      await lock.commitTransaction();
      unlocked = true;
      const statuses = (await Promise.all(burst)).map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(SEARCH_SLOTS + MAX_WAITING_SEARCHES_PER_TENANT);
      expect(statuses.filter((status) => status === 429)).toHaveLength(1);
      const other = await otherTenant;
      expect(other.status).toBe(200);
      expect(other.body.hits.map((hit: { name: string }) => hit.name).sort()).toEqual(found('T2'));
    } finally {
      if (!unlocked) await lock.rollbackTransaction();
      await lock.release();
    }
  });

  it('drops a search whose caller leaves while it waits for its turn', async () => {
    const slots = sut.app.get(SearchSlots);
    const search = () => http().get(`/v1/projects/${projectId}/search`).query({ q: 'grout' }).set(admin.auth);
    const lock = sut.db.createQueryRunner();
    await lock.startTransaction();
    let unlocked = false;
    try {
      await lock.query('LOCK TABLE connector.documents IN ACCESS EXCLUSIVE MODE');
      const running = Array.from({ length: SEARCH_SLOTS }, () => search().then((res) => res.status));
      await eventually(() => slots.load.running === SEARCH_SLOTS, 10_000);
      const { port } = sut.app.getHttpServer().address() as AddressInfo;
      const leaving = httpGet(`http://127.0.0.1:${port}/v1/projects/${projectId}/search?q=grout`, {
        headers: admin.auth,
      });
      leaving.on('error', () => undefined); // its socket is closed below, on purpose
      await eventually(() => slots.load.waiting === 1, 10_000);
      leaving.destroy();
      await eventually(() => slots.load.waiting === 0, 10_000);
      await lock.commitTransaction();
      unlocked = true;
      expect(await Promise.all(running)).toEqual(Array(SEARCH_SLOTS).fill(200));
      expect(slots.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      if (!unlocked) await lock.rollbackTransaction();
      await lock.release();
    }
  });

  it('finds nothing for a member removed while their search or passages waited for their turn', async () => {
    const member = await testCaller({ tenantId: admin.tenantId });
    await sut.db.query(
      `INSERT INTO connector.data_source_members ("dataSourceId", "userId", "addedBy") VALUES ($1, $2, 'seed')`,
      [sources.a1, member.userId],
    );
    const slots = sut.app.get(SearchSlots);
    const ask = (what: 'search' | 'passages', query: Record<string, string>) =>
      http()
        .get(`/v1/projects/${projectId}/${what}`)
        .query(query)
        .set(member.auth)
        .then((res) => res);
    expect(await names(member, { q: 'grout' })).toEqual(found('A1'));
    const lock = sut.db.createQueryRunner();
    await lock.startTransaction();
    let unlocked = false;
    try {
      await lock.query('LOCK TABLE connector.documents IN ACCESS EXCLUSIVE MODE');
      const running = Array.from({ length: SEARCH_SLOTS }, () =>
        http()
          .get(`/v1/projects/${projectId}/search`)
          .query({ q: 'grout' })
          .set(admin.auth)
          .then((res) => res.status),
      );
      await eventually(() => slots.load.running === SEARCH_SLOTS, 10_000);
      const waiting = [
        ask('search', { q: 'grout', dataSourceId: sources.a1 }),
        ask('search', { q: 'grout' }),
        ask('passages', { q: 'grout' }),
      ];
      await eventually(() => slots.load.waiting === waiting.length, 10_000);
      await http().delete(`/v1/data-sources/${sources.a1}/members/${member.userId}`).set(admin.auth).expect(204);
      await lock.commitTransaction();
      unlocked = true;
      const [asked, all, passages] = await Promise.all(waiting);
      expect({ status: asked.status, code: asked.body.code }).toEqual({ status: 404, code: 'DATA_SOURCE_NOT_FOUND' });
      expect({ status: all.status, hits: all.body.hits }).toEqual({ status: 200, hits: [] });
      expect({ status: passages.status, passages: passages.body.passages }).toEqual({ status: 200, passages: [] });
      expect(await Promise.all(running)).toEqual(Array(SEARCH_SLOTS).fill(200));
    } finally {
      if (!unlocked) await lock.rollbackTransaction();
      await lock.release();
    }
  });

  it('ends a search that runs past SEARCH_TIMEOUT_MS with 503 SEARCH_TIMEOUT and Retry-After, whether it reads the whole project or part of it', async () => {
    const lock = sut.db.createQueryRunner();
    await lock.startTransaction();
    try {
      await lock.query('LOCK TABLE connector.documents IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const [whole, part] = await Promise.race([
        Promise.all([
          http().get(`/v1/projects/${projectId}/search`).query({ q: 'grout' }).set(admin.auth),
          http().get(`/v1/projects/${projectId}/search`).query({ q: 'grout', pathPrefix: '/A1/' }).set(admin.auth),
        ]),
        timeout(3 * SEARCH_TIMEOUT_MS, 'the searches were not ended'),
      ]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(SEARCH_TIMEOUT_MS - 100);
      for (const res of [whole, part]) {
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.body).toMatchObject({ statusCode: 503, code: 'SEARCH_TIMEOUT' });
      }
    } finally {
      await lock.rollbackTransaction();
      await lock.release();
    }
    expect(await names(admin, { q: 'grout', pathPrefix: '/A1/' })).toEqual(found('A1'));
  });

  it('answers the same every time, once the statement is planned without the values', async () => {
    // PostgreSQL plans a named statement with its values five times before it may keep a generic plan.
    for (let i = 0; i < 8; i++) expect(await names(admin, { q: 'grout' })).toEqual(found('A1', 'A2'));
  });

  it('takes %, _ and \\ in q as the characters they are in a file name, not as wildcards', async () => {
    for (const q of ['_', '%', '\\']) expect(await names(admin, { q })).toEqual([]);
    const project = await projectOf([
      ['50% done.md', 'Half of the slabs are poured.', null],
      ['500 tons.md', 'The steel was delivered.', null],
    ]);
    expect(await names(admin, { q: '50%' }, project)).toEqual(['50% done.md']);
  });

  it('excludes a document that holds a negated word anywhere: its text, a deep chunk, its name', async () => {
    const project = await projectOf([
      ['Report.md', 'This is the draft of the report on concrete.', null],
      ['Report appendix.md', filler, 'Past the first ten thousand characters: an early draft.'],
      ['Report draft.md', 'The report on concrete.', null],
      ['Report final.md', 'The final report on concrete.', null],
      ['Minutes.md', 'The minutes of the meeting.', null],
    ]);
    expect(await names(admin, { q: 'report -draft' }, project)).toEqual(['Report final.md']);
    expect(await names(admin, { q: '-draft' }, project)).toEqual(['Minutes.md', 'Report final.md']);
    expect(await names(admin, { q: 'report -"early draft"' }, project)).toEqual([
      'Report draft.md',
      'Report final.md',
      'Report.md',
    ]);
  });

  it('pages through names that merely look alike without repeating or skipping a hit, in the order of one page', async () => {
    const project = await projectOf([
      ['Preschedules of the north wing level two.md', 'Curing times.', null],
      ['Preschedules of the south wing level three.md', 'Placing times.', null],
      ['Schedul.md', 'Nothing here.', null],
    ]);
    const onePage = await allPages(project, 'schedule', 20);
    expect(await allPages(project, 'schedule', 1)).toEqual(onePage);
    expect(onePage).toHaveLength(3);
    expect(onePage[2]).toBe('Schedul.md'); // only looks alike: after the names that hold the word
  });

  // Last: its data sources join the project. A path prefix is a range of the path index in a saved plan.
  it('finds under a path prefix exactly its paths, with %, _ and \\ taken as written, every time', async () => {
    await seedDataSource(admin.tenantId, projectId, 'P_1%\\', []);
    await seedDataSource(admin.tenantId, projectId, 'PX1%\\', []);
    await seedDataSource(admin.tenantId, projectId, 'P_1%\\x', []);
    for (let i = 0; i < 7; i++) {
      expect(await names(admin, { q: 'grout', pathPrefix: '/P_1%\\/' })).toEqual(found('P_1%\\'));
      expect(await names(admin, { q: 'grout', pathPrefix: '/P_1%\\' })).toEqual(found('P_1%\\', 'P_1%\\x'));
    }
  });
});
