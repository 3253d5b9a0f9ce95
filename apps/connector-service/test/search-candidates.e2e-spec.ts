import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { MAX_SEARCH_OFFSET } from '../src/search/search.dto';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';

/**
 * Search over more matching documents than its first pass takes (MAX_SEARCH_OFFSET + 101): the corpus is
 * written straight into the tables, as extraction would leave it, so that hundreds of documents cost
 * milliseconds instead of a sync.
 */
describe('Search over more matches than one pass ranks', () => {
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  const projectId = randomUUID();
  const dataSourceId = randomUUID();
  const http = () => request(sut.app.getHttpServer());
  const search = (query: Record<string, string | number>) =>
    http().get(`/v1/projects/${projectId}/search`).query(query).set(admin.auth);
  const filler = 'General requirements apply to every trade on the site. '.repeat(60); // about 3,400 characters

  beforeAll(async () => {
    sut = await startConnectorApp({}, 'api');
    admin = await testCaller({ roles: ['admin'] });
    await seed();
  });
  afterAll(() => sut.close());

  async function seed() {
    const credentialId = randomUUID();
    await sut.db.query(
      `INSERT INTO connector.credentials (id, "tenantId", name, type, "instanceUrl", username, "passwordEncrypted", scope, "createdBy")
       VALUES ($1, $2, 'Seeded', 'DocumentSystem', 'http://127.0.0.1:1', 'seed', 'not-a-secret', 'Tenant', $3)`,
      [credentialId, admin.tenantId, admin.userId],
    );
    await sut.db.query(
      `INSERT INTO connector.data_sources (id, "tenantId", "projectId", name, "credentialId", "connectionId", "ingestionStatus", "createdBy", "instanceOrigin")
       VALUES ($1, $2, $3, 'Seeded', $4, $5, 'Synced', $6, 'http://127.0.0.1:1')`,
      [dataSourceId, admin.tenantId, projectId, credentialId, randomUUID(), admin.userId],
    );
    // 400 documents name the grout only past their opening 2,000 characters; the last 3 written (last in
    // the table's order too) open with it.
    const documents = [
      ...Array.from({ length: 400 }, (_, i) => [`Daily Report ${i}.md`, `${filler}\nThe grout was placed today.`]),
      ...Array.from({ length: 3 }, (_, i) => [`Method Statement ${i}.md`, `Grout mix and grout placing.\n${filler}`]),
      // Words deep in the opening, for the snippets: one whose stem ("quarri") is not how it is written,
      // one after a longer word that starts with it.
      ['Letter A.md', `${filler.slice(0, 1500)} Stone from the quarry arrives on Monday.`],
      ['Letter B.md', `The rodent traps were set. ${filler.slice(0, 1500)} Anchor rod bolts were torqued.`],
      // A phrase in the opening, and a document whose opening holds the phrase's words often but apart.
      ['Phrase Opening.md', `Notes.\nThe post tensioned slab stressing is planned.\n${filler}`],
      [
        'Phrase Further.md',
        `${'Slab post and stressing tensioned. '.repeat(8)}${filler}\nPost tensioned slab stressing.`,
      ],
      // A negated word scores every opening 0 (ts_rank): three open with the gypsum, two (their names first)
      // hold it only past their opening.
      ...Array.from({ length: 3 }, (_, i) => [`Zeta Note ${i}.md`, `The gypsum arrived.\n${filler}`]),
      ...Array.from({ length: 2 }, (_, i) => [`Alpha Note ${i}.md`, `${filler}\nThe gypsum arrived.`]),
      // Six words spread over 9,000 characters, as a long report holds them.
      [
        'Letter C.md',
        [
          ['girder', 100],
          ['joist', 300],
          ['stringer', 700],
          ['lintel', 1000],
          ['purlin', 3000],
          ['corbel', 3400],
        ]
          .map(([word, gap]) => `The ${word} is here. ${filler.repeat(2).slice(0, Number(gap))}`)
          .join(''),
      ],
    ];
    for (const [name, text] of documents)
      await sut.db.query(
        `INSERT INTO connector.documents (id, "tenantId", "dataSourceId", "externalId", "folderId", name, path, "mimeType", size, "contentSha256", "extractionStatus", text, "lastSeenRunId")
         VALUES (gen_random_uuid(), $1, $2, $3, 'reports', $3, '/Reports/' || $3, 'text/markdown', length($4), md5($4), 'Succeeded', $4, gen_random_uuid())`,
        [admin.tenantId, dataSourceId, name, text],
      );
  }

  it('ranks the documents that open with the word first, even when they are the last of 403 matches', async () => {
    const page = (await search({ q: 'grout', limit: 5 }).expect(200)).body;
    expect(page.hits.slice(0, 3).map((h: { name: string }) => h.name)).toEqual([
      'Method Statement 0.md',
      'Method Statement 1.md',
      'Method Statement 2.md',
    ]);
    expect(page.hits[0].snippet).toContain('<mark>Grout</mark>');
    expect(page.hits[3].snippet).toContain('<mark>grout</mark>'); // cut from past the opening
  });

  it.each([
    ['quarry', 'Letter A.md'],
    ['rod', 'Letter B.md'],
  ])('highlights %s in the snippet of %s, 1,500 characters into its opening', async (word, name) => {
    const page = (await search({ q: word }).expect(200)).body;
    expect(page.hits).toEqual([
      expect.objectContaining({ name, snippet: expect.stringContaining(`<mark>${word}</mark>`) }),
    ]);
  });

  it('ranks a document whose opening holds a phrase above one whose opening holds its words apart', async () => {
    const page = (await search({ q: '"post tensioned slab stressing"' }).expect(200)).body;
    expect(page.hits.map((h: { name: string }) => h.name)).toEqual(['Phrase Opening.md', 'Phrase Further.md']);
    expect(page.hits[1].snippet).toContain('<mark>');
  });

  it('marks the words of a query of several words in the snippet, even when they lie far apart', async () => {
    const page = (await search({ q: 'girder joist stringer lintel purlin corbel' }).expect(200)).body;
    expect(page.hits).toEqual([expect.objectContaining({ name: 'Letter C.md' })]);
    expect(page.hits[0].snippet).toContain('<mark>girder</mark>');
  });

  it('pages without repeating a hit, full pages up to the reach, then no further cursor', async () => {
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = (await search({ q: 'grout', limit: 100, ...(cursor ? { cursor } : {}) }).expect(200)).body;
      expect(page.hits).toHaveLength(100);
      for (const hit of page.hits) seen.add(hit.documentId);
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(MAX_SEARCH_OFFSET / 100 + 1);
    expect(seen.size).toBe(pages * 100);
  });

  it('pages without repeating a hit when every opening scores 0, those found further in coming last', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await search({ q: 'gypsum -asbestos', limit: 2, ...(cursor ? { cursor } : {}) }).expect(200)).body;
      names.push(...page.hits.map((h: { name: string }) => h.name));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(names).toEqual(['Zeta Note 0.md', 'Zeta Note 1.md', 'Zeta Note 2.md', 'Alpha Note 0.md', 'Alpha Note 1.md']);
  });

  it('refuses a cursor past the reach with a 400 that says so', async () => {
    const res = await search({ q: 'grout', cursor: String(MAX_SEARCH_OFFSET + 1) }).expect(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ field: 'cursor' })],
    });
    expect(JSON.stringify(res.body)).toContain(`${MAX_SEARCH_OFFSET} hits`);
  });
});
