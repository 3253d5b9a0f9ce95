import { eventually, testCaller, TestCaller } from '@app/testing';
import { pdfDocument } from '../../document-system-simulator/src/store/file-formats';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd, syncToSearchable, SyncRunView } from './support/sync-helpers';

interface LedgerRow {
  externalId: string;
  documentId: string | null;
  name: string;
  path: string;
  outcome: string;
  reason: string | null;
}

interface SimFile {
  id: string;
  name: string;
  size: number;
}

const MAX_FILE_BYTES = 4000;
/** A download with no answer by then fails (a file the document system says is gone is no failure). */
const DOCUMENT_SYSTEM_DEADLINE_MS = 2000;

describe('The per-file ledger of sync runs', () => {
  const stack = connectorOnSimulator({ env: { MAX_FILE_BYTES, LEDGER_KEEP_RUNS: 2, DOCUMENT_SYSTEM_DEADLINE_MS } });
  let user: TestCaller;
  let dataSourceId: string;
  let ledgerFolder: string;
  let subFolder: string;
  const files: SimFile[] = [];
  let fullRun: SyncRunView;
  let incremental: SyncRunView;
  const { http } = stack;
  const addFile = async (parentId: string, name: string, content: Record<string, unknown>): Promise<SimFile> =>
    (await stack.sim.admin.post('/files', { parentId, name, ...content })).data;

  /** Every row of a run's ledger, following nextCursor; asserts no page repeats a row. */
  async function allRows(syncRunId: string, query: Record<string, unknown> = {}): Promise<LedgerRow[]> {
    const rows: LedgerRow[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = (
        await http()
          .get(`/v1/sync-runs/${syncRunId}/files`)
          .query({ ...query, ...(cursor ? { cursor } : {}) })
          .set(user.auth)
          .expect(200)
      ).body as { items: LedgerRow[]; nextCursor: string | null };
      rows.push(...page.items);
      cursor = page.nextCursor ?? undefined;
      pages += 1;
      expect(pages).toBeLessThan(100);
    } while (cursor);
    expect(new Set(rows.map((r) => r.externalId)).size).toBe(rows.length);
    return rows;
  }

  const outcomesByName = (rows: LedgerRow[]) =>
    Object.fromEntries(rows.map((r) => [r.name, { outcome: r.outcome, reason: r.reason }]));

  beforeAll(async () => {
    user = await testCaller({ roles: ['admin'] });
    ledgerFolder = (
      await stack.sim.admin.post('/folders', { parentId: await stack.sim.folderId('/Structural'), name: 'Ledger' })
    ).data.id;
    subFolder = (await stack.sim.admin.post('/folders', { parentId: ledgerFolder, name: 'Sub' })).data.id;
    for (let i = 1; i <= 5; i++) files.push(await addFile(ledgerFolder, `note-${i}.txt`, { text: `note ${i}` }));
    for (let i = 1; i <= 4; i++) files.push(await addFile(subFolder, `sub-${i}.txt`, { text: `sub note ${i}` }));
    dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, user, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(user),
      include: [ledgerFolder],
      name: 'Ledger',
    });
  });

  it('records every file of a full sync as Added, paged by nextCursor without repeats', async () => {
    fullRun = await syncToSearchable(stack.sut.app, user, dataSourceId);
    expect(fullRun.counts).toMatchObject({ added: files.length, failed: 0 });
    const rows = await allRows(fullRun.id, { limit: 2 });
    expect(rows).toHaveLength(files.length);
    expect(rows.map((r) => r.externalId).sort()).toEqual(files.map((f) => f.id).sort());
    expect(rows.every((r) => r.outcome === 'Added' && r.reason === null && r.documentId)).toBe(true);
    expect(rows.find((r) => r.name === 'sub-1.txt')).toMatchObject({ path: '/Structural/Ledger/Sub/sub-1.txt' });
    const first = (await http().get(`/v1/sync-runs/${fullRun.id}/files`).query({ limit: 2 }).set(user.auth)).body;
    expect(first.items).toHaveLength(2);
    expect(typeof first.nextCursor).toBe('string');

    expect(await allRows(fullRun.id, { outcome: 'Added', limit: 4 })).toHaveLength(files.length);
    const failed = (await http().get(`/v1/sync-runs/${fullRun.id}/files`).query({ outcome: 'Failed' }).set(user.auth))
      .body;
    expect(failed).toEqual({ items: [], nextCursor: null });
  });

  it('records an incremental run: Updated, Deleted, Added, Unchanged, Skipped, NoText and Failed with reasons', async () => {
    const [changed, deleted] = [files[0], files[5]];
    await stack.sim.admin.patch(`/files/${changed.id}`, { text: 'note 1, second version' });
    await stack.sim.admin.delete(`/nodes/${deleted.id}`);
    await addFile(subFolder, 'added.txt', { text: 'added after the first sync' });
    await addFile(ledgerFolder, 'too-large.txt', { generate: { format: 'text', size: MAX_FILE_BYTES * 3 } });
    await addFile(ledgerFolder, 'scan.pdf', {
      base64: pdfDocument([[]]).toString('base64'),
      mimeType: 'application/pdf',
    });
    await addFile(ledgerFolder, 'drawing.dwg', { base64: Buffer.from('not text').toString('base64') });
    const stuck = await addFile(subFolder, 'stuck.txt', { text: 'never downloaded' });
    await stack.sim.admin.put('/faults', { latencyMs: 2 * DOCUMENT_SYSTEM_DEADLINE_MS, slowUnder: [stuck.id] });
    try {
      incremental = await syncToEnd(stack.sut.app, user, dataSourceId, 60000);
    } finally {
      await stack.sim.admin.put('/faults', { latencyMs: 0, slowUnder: [] });
    }
    expect(incremental).toMatchObject({ mode: 'Incremental', status: 'PartiallySucceeded' });

    // The PDF's and the drawing's rows change once their text extraction has ended.
    const rows = await eventually(async () => {
      const all = await allRows(incremental.id, { limit: 3 });
      const byName = outcomesByName(all);
      return byName['scan.pdf']?.outcome === 'NoText' && byName['drawing.dwg']?.outcome === 'Skipped' && all;
    });
    const byName = outcomesByName(rows);
    expect(byName['note-1.txt']).toEqual({ outcome: 'Updated', reason: null });
    expect(byName['sub-1.txt']).toEqual({ outcome: 'Deleted', reason: null });
    expect(byName['added.txt']).toEqual({ outcome: 'Added', reason: null });
    expect(byName['too-large.txt']).toEqual({ outcome: 'Skipped', reason: 'TooLarge' });
    expect(byName['scan.pdf']).toEqual({ outcome: 'NoText', reason: null });
    expect(byName['drawing.dwg']).toEqual({ outcome: 'Skipped', reason: 'Unsupported' });
    expect(byName['stuck.txt']).toEqual({
      outcome: 'Failed',
      reason: `The document system did not answer: no answer within ${DOCUMENT_SYSTEM_DEADLINE_MS / 1000} s`,
    });
    expect(rows.find((r) => r.name === 'stuck.txt')!.documentId).toBeNull();
    expect(rows.find((r) => r.name === 'sub-1.txt')!.documentId).toEqual(expect.any(String));
    const unchanged = rows.filter((r) => r.outcome === 'Unchanged').map((r) => r.name);
    expect(unchanged.sort()).toEqual([
      'note-2.txt',
      'note-3.txt',
      'note-4.txt',
      'note-5.txt',
      'sub-2.txt',
      'sub-3.txt',
      'sub-4.txt',
    ]);
    expect(rows).toHaveLength(7 + 7);

    const onlyUnchanged = await allRows(incremental.id, { outcome: 'Unchanged', limit: 2 });
    expect(onlyUnchanged.map((r) => r.name).sort()).toEqual(unchanged.sort());
    // The earlier run's ledger is its own.
    expect((await allRows(fullRun.id)).every((r) => r.outcome === 'Added')).toBe(true);
  }, 90000);

  it('shows on each tree folder the counts of the latest run’s outcomes below it', async () => {
    const tree = async (folderId?: string) =>
      (
        await http()
          .get(`/v1/data-sources/${dataSourceId}/tree`)
          .query(folderId ? { folderId } : {})
          .set(user.auth)
          .expect(200)
      ).body;
    const roots = await tree();
    expect(roots.folders.map((f: { name: string }) => f.name)).toEqual(['Structural']);
    const everything = { Unchanged: 7, Updated: 1, Deleted: 1, Added: 1, Skipped: 2, NoText: 1, Failed: 1 };
    expect(roots.folders[0].outcomes).toEqual(everything);
    const structural = await tree(roots.folders[0].id);
    expect(structural.folder.outcomes).toEqual(everything);
    expect(structural.folders[0]).toMatchObject({ name: 'Ledger', outcomes: everything });
    const ledger = await tree(ledgerFolder);
    expect(ledger.folders).toEqual([
      expect.objectContaining({ name: 'Sub', outcomes: { Unchanged: 3, Deleted: 1, Added: 1, Failed: 1 } }),
    ]);
  });

  it('answers 404 to a non-member, 400 to an unknown outcome or cursor', async () => {
    const stranger = await testCaller({ tenantId: user.tenantId });
    const hidden = await http().get(`/v1/sync-runs/${incremental.id}/files`).set(stranger.auth).expect(404);
    expect(hidden.body.code).toBe('SYNC_RUN_NOT_FOUND');
    await http().get(`/v1/sync-runs/${incremental.id}`).set(stranger.auth).expect(404);
    const otherTenant = await testCaller({ roles: ['admin'] });
    await http().get(`/v1/sync-runs/${incremental.id}/files`).set(otherTenant.auth).expect(404);

    const badOutcome = await http()
      .get(`/v1/sync-runs/${incremental.id}/files`)
      .query({ outcome: 'Exploded' })
      .set(user.auth)
      .expect(400);
    expect(badOutcome.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'VALIDATION_FAILED' });
    expect(badOutcome.body.details).toEqual([expect.objectContaining({ field: 'outcome' })]);
    const badCursor = await http()
      .get(`/v1/sync-runs/${incremental.id}/files`)
      .query({ cursor: 'bm90IGEgY3Vyc29y' })
      .set(user.auth)
      .expect(400);
    expect(badCursor.body.code).toBe('VALIDATION_FAILED');
    await http().get(`/v1/sync-runs/${incremental.id}/files`).query({ limit: 1001 }).set(user.auth).expect(400);
  });
  it("keeps the ledgers of the data source's latest LEDGER_KEEP_RUNS (2) runs: a third run forgets the first", async () => {
    expect((await allRows(incremental.id, {})).length).toBeGreaterThan(0);
    const third = await syncToEnd(stack.sut.app, user, dataSourceId);
    expect((await allRows(third.id, {})).length).toBeGreaterThan(0);
    expect((await allRows(incremental.id, {})).length).toBeGreaterThan(0);
    const forgotten = await http().get(`/v1/sync-runs/${fullRun.id}/files`).set(user.auth).expect(200);
    expect(forgotten.body).toEqual({ items: [], nextCursor: null });
    const run = (await http().get(`/v1/sync-runs/${fullRun.id}`).set(user.auth).expect(200)).body;
    expect(run.counts.added).toBe(files.length); // the run itself and its counts stay
  });
});
