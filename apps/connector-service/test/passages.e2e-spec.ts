import { randomUUID } from 'node:crypto';
import type { Queue } from 'bull';
import { getQueueToken } from '@nestjs/bull';
import { after, eventually, testCaller, TestCaller } from '@app/testing';
import { pdfDocument } from '../../document-system-simulator/src/store/file-formats';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { BlobStore } from '../src/blobs/blob-store';
import { INDEXING_QUEUE, layOutTextJobId } from '../src/indexing/indexing.jobs';
import { TextLayouts } from '../src/indexing/text-layouts';
import { MAX_WAITING_SEARCHES_PER_TENANT, SEARCH_SLOTS } from '../src/search/search-slots';
import { dataSourceSelecting } from './support/data-source-on';
import { ConnectorTestApp } from './support/connector-app';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToSearchable } from './support/sync-helpers';

interface Passage {
  documentId: string;
  dataSourceId: string;
  name: string;
  path: string;
  text: string;
  start: number;
  end: number;
  page: number | null;
  score: number;
}

/** About 25,000 characters of numbered clauses: chunks past the first 10,000 characters are stored as rows. */
const clauses = (from: number, count: number) =>
  Array.from(
    { length: count },
    (_, i) => `Clause ${from + i}: the contractor shall coordinate the work with the other trades on site.`,
  ).join('\n');
/** An emoji before everything else: offsets count it as one character, as Python and PostgreSQL do. */
const SPEC_TEXT = [
  'Roof 😀 specification. The membrane flashing at parapets is inspected weekly.',
  clauses(1, 150),
  'Deep in the text: the firestopping sealant at slab penetrations is listed and tested.',
  clauses(151, 130),
].join('\n');
const PDF_PAGES = [
  ['Sheet A-001 general notes', 'Verify dimensions in the field.'],
  ['Sheet S-201 foundation plan', 'Anchor bolt embedment depth is 300 mm.', 'Grout under base plates.'],
  [],
  ['Sheet A-501 wall sections', 'Curtain wall mockup before production glazing.'],
];

/** Long enough that a burst of searches is still running and waiting when a refusal is asked for. */
const SEARCH_TIMEOUT_MS = 10_000;
const never = new Promise<never>(() => undefined);

/** Runs `work` while every statement on the documents waits for a lock this test holds. */
async function withDocumentsLocked<T>(sut: ConnectorTestApp, work: () => Promise<T>): Promise<T> {
  const lock = sut.db.createQueryRunner();
  await lock.startTransaction();
  try {
    await lock.query('LOCK TABLE connector.documents IN ACCESS EXCLUSIVE MODE');
    return await work();
  } finally {
    await lock.rollbackTransaction();
    await lock.release();
  }
}

/** The passages endpoint over real extraction: a text file and a PDF synced from the document system. */
describe('Passages an agent can cite', () => {
  const stack = connectorOnSimulator({ env: { SEARCH_TIMEOUT_MS } });
  let owner: TestCaller;
  let dataSourceId: string;
  const projectId = randomUUID();
  const { http } = stack;
  const passages = async (caller: TestCaller, query: Record<string, string | number>) =>
    (await http().get(`/v1/projects/${projectId}/passages`).query(query).set(caller.auth).expect(200)).body as {
      passages: Passage[];
      truncated: boolean;
    };
  const textOf = async (documentId: string) =>
    (await http().get(`/v1/documents/${documentId}/text`).set(owner.auth).expect(200)).body as {
      text: string;
      pages: Array<{ page: number; start: number; end: number }>;
    };
  /** The document's text from start to end, counted in characters (code points). */
  const slice = (text: string, start: number, end: number) => [...text].slice(start, end).join('');

  beforeAll(async () => {
    owner = await testCaller({ roles: ['admin'] });
    const folderId = (
      await stack.sim.admin.post('/folders', {
        parentId: await stack.sim.folderId('/Structural'),
        name: `passages-${randomUUID().slice(0, 8)}`,
      })
    ).data.id;
    await stack.sim.admin.post('/files', { parentId: folderId, name: 'roof-spec.txt', text: SPEC_TEXT });
    await stack.sim.admin.post('/files', {
      parentId: folderId,
      name: 'drawings.pdf',
      mimeType: 'application/pdf',
      base64: pdfDocument(PDF_PAGES).toString('base64'),
    });
    dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, owner, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(owner),
      include: [folderId],
      name: 'Passages',
      projectId,
    });
    await syncToSearchable(stack.sut.app, owner, dataSourceId);
  }, 120_000);

  it("gives a text file's matching chunks with where they lie in its text, in characters, and no page", async () => {
    const { passages: deep, truncated } = await passages(owner, { q: 'firestopping sealant' });
    expect(truncated).toBe(false);
    expect(deep).toHaveLength(1);
    expect(deep[0]).toMatchObject({ name: 'roof-spec.txt', dataSourceId, page: null });
    expect(deep[0].path).toMatch(/^\/Structural\/passages-[^/]+\/roof-spec\.txt$/);
    expect(deep[0].start).toBeGreaterThan(10_000); // a stored (deep) chunk
    expect(deep[0].text).toContain('firestopping sealant at slab penetrations');
    expect(deep[0].score).toBeGreaterThan(0);
    const { text, pages } = await textOf(deep[0].documentId);
    expect(pages).toEqual([]);
    expect(slice(text, deep[0].start, deep[0].end)).toBe(deep[0].text);

    const [opening] = (await passages(owner, { q: 'membrane flashing' })).passages;
    expect(opening).toMatchObject({ name: 'roof-spec.txt', start: 0, page: null });
    expect(opening.text.startsWith('Roof 😀 specification.')).toBe(true);
    expect(slice(text, opening.start, opening.end)).toBe(opening.text);
  });

  it("gives a PDF's passages with the page where each starts, and the text's page ranges", async () => {
    const [anchor] = (await passages(owner, { q: 'anchor bolt embedment' })).passages;
    expect(anchor).toMatchObject({ name: 'drawings.pdf', page: 2 });
    const [mockup] = (await passages(owner, { q: '"curtain wall mockup"' })).passages;
    expect(mockup).toMatchObject({ name: 'drawings.pdf', page: 4, text: PDF_PAGES[3].join('\n') }); // no chunk runs over a page break
    const { text, pages } = await textOf(anchor.documentId);
    expect(pages.map(({ page }) => page)).toEqual([1, 2, 3, 4]);
    pages.forEach(({ page, start, end }) => expect(slice(text, start, end)).toBe(PDF_PAGES[page - 1].join('\n')));
    expect(pages[2].start).toBe(pages[2].end); // the empty page
    expect(anchor.text).toBe(PDF_PAGES[1].join('\n'));
    expect(slice(text, anchor.start, anchor.end)).toBe(anchor.text);
  });

  it('keeps the text of all passages within maxChars, cutting the last one short, its end moved with it', async () => {
    const all = await passages(owner, { q: 'contractor coordinate trades', limit: 10, maxChars: 50_000 });
    expect(all.passages.length).toBe(10);
    expect(all.truncated).toBe(false);
    expect(all.passages.every((p) => p.name === 'roof-spec.txt')).toBe(true);
    const scores = all.passages.map((p) => p.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));

    const cut = await passages(owner, { q: 'contractor coordinate trades', limit: 10, maxChars: 2000 });
    expect(cut.truncated).toBe(true);
    const chars = cut.passages.reduce((n, p) => n + [...p.text].length, 0);
    expect(chars).toBeLessThanOrEqual(2000);
    expect(chars).toBeGreaterThan(1500);
    expect(cut.passages.length).toBeLessThan(all.passages.length);
    const { text } = await textOf(cut.passages[0].documentId);
    for (const p of cut.passages) expect(slice(text, p.start, p.end)).toBe(p.text);
    const last = cut.passages[cut.passages.length - 1];
    expect(last.text.length).toBeLessThan(all.passages[cut.passages.length - 1].text.length);
  });

  it('filters by data source and path prefix', async () => {
    expect((await passages(owner, { q: 'anchor bolt', dataSourceId })).passages).toHaveLength(1);
    expect((await passages(owner, { q: 'anchor bolt', pathPrefix: '/Architecture/' })).passages).toEqual([]);
    expect((await passages(owner, { q: 'anchor bolt', pathPrefix: '/Structural/passages-' })).passages).toHaveLength(1);
  });

  it('shows nothing to a user who may not read the data source, and 404 for its id', async () => {
    const outsider = await testCaller({ tenantId: owner.tenantId });
    const otherTenant = await testCaller({ roles: ['admin'] });
    for (const caller of [outsider, otherTenant]) {
      expect(await passages(caller, { q: 'anchor bolt' })).toEqual({ passages: [], truncated: false });
      const res = await http()
        .get(`/v1/projects/${projectId}/passages`)
        .query({ q: 'anchor bolt', dataSourceId })
        .set(caller.auth)
        .expect(404);
      expect(res.body).toMatchObject({ statusCode: 404, code: 'DATA_SOURCE_NOT_FOUND' });
    }
    await http().post(`/v1/data-sources/${dataSourceId}/members`).set(owner.auth).send({ userId: outsider.userId });
    expect((await passages(outsider, { q: 'anchor bolt', dataSourceId })).passages).toHaveLength(1);
    await http().get(`/v1/projects/${projectId}/passages`).query({ q: 'anchor' }).expect(401);
  });

  it.each([
    [{ limit: 0 }],
    [{ limit: 51 }],
    [{ limit: 'ten' }],
    [{ maxChars: 199 }],
    [{ maxChars: 50_001 }],
    [{ dataSourceId: 'not-a-uuid' }],
    [{ q: '' }],
    [{ q: undefined }],
  ])('refuses %j with 400 VALIDATION_FAILED', async (bad) => {
    const query = Object.fromEntries(
      Object.entries({ q: 'anchor', ...bad }).filter(([, value]) => value !== undefined),
    ) as Record<string, string | number>;
    const res = await http().get(`/v1/projects/${projectId}/passages`).query(query).set(owner.auth).expect(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED' });
  });

  it('takes the limits at their bounds', async () => {
    expect((await passages(owner, { q: 'anchor', limit: 50, maxChars: 50_000 })).passages).toHaveLength(1);
    const one = await passages(owner, { q: 'contractor', limit: 1, maxChars: 200 });
    expect(one.passages).toHaveLength(1);
    expect([...one.passages[0].text].length).toBeLessThanOrEqual(200);
    expect(one.truncated).toBe(true);
  });

  it('lays out again, in the background, a text extracted before chunks and pages kept their place; passages leave it out until then', async () => {
    const before = await passages(owner, { q: 'firestopping sealant' });
    const [pdfPassage] = (await passages(owner, { q: 'anchor bolt embedment' })).passages;
    const pdfPages = (await textOf(pdfPassage.documentId)).pages;
    // As the migration left documents extracted before it.
    await stack.sut.db.query(
      `UPDATE connector.documents SET "openingChunks" = NULL, "pageStarts" = NULL, "pageEnds" = NULL WHERE "dataSourceId" = $1`,
      [dataSourceId],
    );
    await stack.sut.db.query(
      `UPDATE connector.document_chunks SET start = NULL, "end" = NULL WHERE "dataSourceId" = $1`,
      [dataSourceId],
    );
    expect(await passages(owner, { q: 'firestopping sealant' })).toEqual({ passages: [], truncated: false });
    expect((await textOf(pdfPassage.documentId)).pages).toEqual([]);

    expect(await stack.sut.app.get(TextLayouts).queueMissing()).toBe(2); // what the indexing sweep does once a minute
    await eventually(async () => (await passages(owner, { q: 'anchor bolt embedment' })).passages.length === 1);
    await eventually(async () => (await passages(owner, { q: 'firestopping sealant' })).passages.length === 1);
    expect(await passages(owner, { q: 'firestopping sealant' })).toEqual(before);
    expect((await passages(owner, { q: 'anchor bolt embedment' })).passages).toEqual([pdfPassage]);
    expect((await textOf(pdfPassage.documentId)).pages).toEqual(pdfPages);
    expect(await stack.sut.app.get(TextLayouts).queueMissing()).toBe(0);
  });

  it('lays out the stored text of a PDF that cannot be read again, without pages, once its job fails for good', async () => {
    const [before] = (await passages(owner, { q: 'anchor bolt embedment' })).passages;
    const [{ contentSha256 }] = await stack.sut.db.query(
      `SELECT "contentSha256" FROM connector.documents WHERE id = $1`,
      [before.documentId],
    );
    await stack.sut.db.query(
      `UPDATE connector.documents SET "openingChunks" = NULL, "pageStarts" = NULL, "pageEnds" = NULL WHERE id = $1`,
      [before.documentId],
    );
    await stack.sut.app.get(BlobStore).delete(contentSha256);
    expect(await stack.sut.app.get(TextLayouts).queueMissing()).toBe(1);
    // Four attempts, 2 s of backoff doubling between them, then the job gives up.
    await eventually(async () => (await passages(owner, { q: 'anchor bolt embedment' })).passages.length === 1, 60_000);
    const [after] = (await passages(owner, { q: 'anchor bolt embedment' })).passages;
    expect(after).toMatchObject({ documentId: before.documentId, page: null });
    const { text, pages } = await textOf(before.documentId);
    expect(pages).toEqual([]);
    expect(slice(text, after.start, after.end)).toBe(after.text);
    expect(await stack.sut.app.get(TextLayouts).queueMissing()).toBe(0);
  }, 90_000);

  it('lays out the stored text of a PDF whose layout stopped every worker that ran it, rather than queue it again', async () => {
    const [before] = (await passages(owner, { q: 'anchor bolt embedment' })).passages;
    const [{ contentSha256 }] = await stack.sut.db.query(
      `SELECT "contentSha256" FROM connector.documents WHERE id = $1`,
      [before.documentId],
    );
    await stack.sut.db.query(
      `UPDATE connector.documents SET "openingChunks" = NULL, "pageStarts" = NULL, "pageEnds" = NULL WHERE id = $1`,
      [before.documentId],
    );
    const queue = stack.sut.app.get<Queue>(getQueueToken(INDEXING_QUEUE));
    const jobId = layOutTextJobId({ documentId: before.documentId, contentSha256 });
    // Held with its blocking reads cut short; then what workers killed while laying it out leave: the job active,
    // its lock gone, until Bull's stalled check has handed it back more than MAX_STALLED_COUNT (2) times and fails it.
    await queue.pause(true, true);
    try {
      expect(await stack.sut.app.get(TextLayouts).queueMissing()).toBe(1);
      let taken = 0;
      while (await queue.getJob(jobId)) {
        if ((await queue.client.lrem(queue.toKey('wait'), 0, jobId)) > 0) {
          await queue.client.lpush(queue.toKey('active'), jobId);
          taken++;
        }
        await after(100);
      }
      expect(taken).toBe(3);
    } finally {
      await queue.resume(true);
    }
    await eventually(async () => (await passages(owner, { q: 'anchor bolt embedment' })).passages.length === 1);
    expect((await passages(owner, { q: 'anchor bolt embedment' })).passages[0]).toMatchObject({
      documentId: before.documentId,
      page: null,
    });
    expect(await stack.sut.app.get(TextLayouts).queueMissing()).toBe(0);
  }, 60_000);

  it("takes turns in search's slots: past a tenant's running and waiting searches it answers 429 TOO_MANY_SEARCHES", async () => {
    const searches = await withDocumentsLocked(stack.sut, async () => {
      const burst = Array.from({ length: SEARCH_SLOTS + MAX_WAITING_SEARCHES_PER_TENANT + 1 }, () =>
        http()
          .get(`/v1/projects/${projectId}/search`)
          .query({ q: 'anchor' })
          .set(owner.auth)
          .then((res) => res),
      );
      // One search of the burst is refused only once every other one is running or waiting.
      await Promise.race([
        ...burst.map((pending) => pending.then((res) => (res.status === 429 ? res : never))),
        new Promise((_, reject) => setTimeout(() => reject(new Error('no search was refused')), SEARCH_TIMEOUT_MS)),
      ]);
      const refused = await http().get(`/v1/projects/${projectId}/passages`).query({ q: 'anchor' }).set(owner.auth);
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toMatchObject({ statusCode: 429, code: 'TOO_MANY_SEARCHES' });
      return burst;
    });
    await Promise.all(searches);
  });

  it('ends passages that run past SEARCH_TIMEOUT_MS with 503 SEARCH_TIMEOUT and Retry-After', async () => {
    const res = await withDocumentsLocked(stack.sut, () =>
      http().get(`/v1/projects/${projectId}/passages`).query({ q: 'anchor' }).set(owner.auth),
    );
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toMatchObject({ statusCode: 503, code: 'SEARCH_TIMEOUT' });
    expect((await passages(owner, { q: 'anchor bolt' })).passages).toHaveLength(1);
  });
});
