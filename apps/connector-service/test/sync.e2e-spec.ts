import { getQueueToken } from '@nestjs/bull';
import Bull, { Queue } from 'bull';
import { createHash, randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { SharedQueue, SyncCompletedEvent } from '@app/contracts/payloads';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_PHRASES, SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd, syncToSearchable, waitForExtraction, waitForRun } from './support/sync-helpers';
import { SyncScheduler } from '../src/sync/engine/sync-scheduler';
import { SYNC_QUEUE } from '../src/sync/sync.jobs';

interface SimFile {
  id: string;
  name: string;
  path: string;
  size: number;
  sha256: string | null;
}

describe('Sync, tree, search and retrieval', () => {
  const stack = connectorOnSimulator();
  let user: TestCaller;
  let dataSourceId: string;
  let credentialId: string;
  let expected: SimFile[];
  const projectId = randomUUID();
  const { http } = stack;
  const simFiles = async (path: string): Promise<SimFile[]> =>
    (await stack.sim.admin.get('/files', { params: { under: await stack.sim.folderId(path) } })).data;

  beforeAll(async () => {
    user = await testCaller({ roles: ['admin'] });
    credentialId = (
      await http()
        .post('/v1/credentials')
        .set(user.auth)
        .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
        .expect(201)
    ).body.id;
    const member = await testCaller({ tenantId: user.tenantId });
    const ds = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(member.auth)
      .send({ name: 'Project docs', credentialId, connectionId: stack.connections.connect(member) })
      .expect(201);
    dataSourceId = ds.body.id;
    await http()
      .post(`/v1/data-sources/${dataSourceId}/members`)
      .set(member.auth)
      .send({ userId: user.userId })
      .expect(201);
    const include = [await stack.sim.folderId('/Architecture'), await stack.sim.folderId('/Structural/Specifications')];
    const exclude = [await stack.sim.folderId('/Architecture/Drawings/Details')];
    await http()
      .put(`/v1/data-sources/${dataSourceId}/selection`)
      .set(user.auth)
      .send({ include, exclude })
      .expect(200);
    const details = new Set((await simFiles('/Architecture/Drawings/Details')).map((f) => f.id));
    expected = [
      ...(await simFiles('/Architecture')).filter((f) => !details.has(f.id)),
      ...(await simFiles('/Structural/Specifications')),
    ];
  });

  it('answers 409 NOTHING_SELECTED before anything is selected', async () => {
    const other = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(user.auth)
      .send({ name: 'Empty', credentialId, connectionId: stack.connections.connect(user) })
      .expect(201);
    const res = await http().post(`/v1/data-sources/${other.body.id}/sync`).set(user.auth).expect(409);
    expect(res.body.code).toBe('NOTHING_SELECTED');
  });

  it('first syncs everything selected: counts and bytes equal the simulator files under the selection', async () => {
    const events = new Bull<SyncCompletedEvent>(SharedQueue.ConnectorEvents, String(stack.sut.env.REDIS_URL), {
      prefix: String(stack.sut.env.QUEUE_PREFIX),
    });
    try {
      const run = await syncToEnd(stack.sut.app, user, dataSourceId);
      expect(run).toMatchObject({ mode: 'Full', status: 'Succeeded', error: null });
      await waitForExtraction(stack.sut.app, user, dataSourceId);
      expect(run.counts).toEqual({
        discovered: expected.length,
        added: expected.length,
        updated: 0,
        unchanged: 0,
        deleted: 0,
        failed: 0,
        skipped: 0,
      });
      expect(run.bytesDownloaded).toBe(expected.reduce((sum, f) => sum + f.size, 0));
      expect((await http().get(`/v1/data-sources/${dataSourceId}`).set(user.auth)).body.ingestionStatus).toBe('Synced');
      const event = await eventually(async () => (await events.getJob(`sync-completed:${run.id}`))?.data);
      expect(event).toEqual({
        type: 'SyncCompleted',
        tenantId: user.tenantId,
        projectId,
        dataSourceId,
        syncRunId: run.id,
        status: 'Succeeded',
        counts: run.counts,
        pendingExtractions: expect.any(Number),
      });
    } finally {
      await events.close();
    }
  });

  it('keeps the hierarchy: the tree shows exactly the selected folders and files', async () => {
    const roots = (await http().get(`/v1/data-sources/${dataSourceId}/tree`).set(user.auth).expect(200)).body;
    expect(roots.folders.map((f: { name: string }) => f.name).sort()).toEqual(['Architecture', 'Structural']);
    const arch = roots.folders.find((f: { name: string }) => f.name === 'Architecture');
    const archView = (
      await http().get(`/v1/data-sources/${dataSourceId}/tree`).query({ folderId: arch.id }).set(user.auth).expect(200)
    ).body;
    expect(archView.folders.map((f: { name: string }) => f.name)).toEqual([
      'Drawings',
      'RFIs',
      'Specifications',
      'Submittals',
    ]);
    const drawings = archView.folders[0];
    const drawingsView = (
      await http()
        .get(`/v1/data-sources/${dataSourceId}/tree`)
        .query({ folderId: drawings.id })
        .set(user.auth)
        .expect(200)
    ).body;
    expect(drawingsView.folders.map((f: { name: string }) => f.name)).toEqual(['Level 1', 'Level 2', 'Sections']);
    const level1 = (
      await http()
        .get(`/v1/data-sources/${dataSourceId}/tree`)
        .query({ folderId: drawingsView.folders[0].id })
        .set(user.auth)
    ).body;
    expect(level1.files.map((f: { path: string }) => f.path)).toEqual([
      '/Architecture/Drawings/Level 1/A-101 Floor Plan.pdf',
      '/Architecture/Drawings/Level 1/A-102 Reflected Ceiling Plan.pdf',
    ]);
  });

  it('stores every file byte for byte: content hashes match the document system', async () => {
    const docs: Array<{ documentId: string; path: string }> = [];
    for (const f of expected.filter((x) => x.path.includes('/Level 1/') || x.path.endsWith('.docx'))) {
      const hits = (
        await http()
          .get(`/v1/projects/${projectId}/search`)
          .query({ q: f.name.replace(/\.\w+$/, '') })
          .set(user.auth)
      ).body.hits;
      docs.push(hits.find((h: { path: string }) => h.path === f.path));
    }
    for (const doc of docs) {
      const file = expected.find((f) => f.path === doc.path)!;
      const meta = (await http().get(`/v1/documents/${doc.documentId}`).set(user.auth).expect(200)).body;
      expect(meta).toMatchObject({
        dataSourceId,
        externalId: file.id,
        path: file.path,
        size: file.size,
        contentSha256: file.sha256,
        extraction: { status: 'Succeeded', error: null },
      });
      const content = await http()
        .get(`/v1/documents/${doc.documentId}/content`)
        .set(user.auth)
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(
        createHash('sha256')
          .update(content.body as Buffer)
          .digest('hex'),
      ).toBe(file.sha256);
      expect(content.headers['content-type']).toBe(meta.mimeType);
      expect(content.headers['content-disposition']).toContain(encodeURIComponent(file.name));
    }
  });

  it('finds a unique phrase in a PDF and in a DOCX, with a highlighted snippet and the path to cite', async () => {
    const pdf = (
      await http().get(`/v1/projects/${projectId}/search`).query({ q: SEED_PHRASES.pdf }).set(user.auth).expect(200)
    ).body;
    expect(pdf.hits[0]).toMatchObject({
      dataSourceId,
      name: 'A-501 Wall Sections.pdf',
      path: '/Architecture/Drawings/Sections/A-501 Wall Sections.pdf',
      snippet: expect.stringContaining('<mark>'),
    });
    const docx = (
      await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: `"${SEED_PHRASES.docx}"` })
        .set(user.auth)
        .expect(200)
    ).body;
    expect(docx.hits.map((h: { name: string }) => h.name)).toEqual(['Seismic Bracing.docx']);
    const text = (await http().get(`/v1/documents/${docx.hits[0].documentId}/text`).set(user.auth).expect(200)).body;
    expect(text.text).toContain(SEED_PHRASES.docx);
  });

  it('matches file names from partial words, and filters by path prefix', async () => {
    const partial = (await http().get(`/v1/projects/${projectId}/search`).query({ q: 'Gypsum Boa' }).set(user.auth))
      .body;
    expect(partial.hits.map((h: { name: string }) => h.name)).toContain('09 21 16 Gypsum Board Assemblies.docx');
    const typo = (await http().get(`/v1/projects/${projectId}/search`).query({ q: 'Wall Sectons' }).set(user.auth))
      .body;
    expect(typo.hits.map((h: { name: string }) => h.name)).toContain('A-501 Wall Sections.pdf');
    const scoped = (
      await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: 'RFI', pathPrefix: '/Architecture/RFIs', limit: 100 })
        .set(user.auth)
    ).body;
    expect(scoped.hits.length).toBe(60);
    expect(scoped.hits.every((h: { path: string }) => h.path.startsWith('/Architecture/RFIs/'))).toBe(true);
    const page1 = (
      await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: 'RFI', pathPrefix: '/Architecture/RFIs', limit: 25 })
        .set(user.auth)
    ).body;
    const page2 = (
      await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: 'RFI', pathPrefix: '/Architecture/RFIs', limit: 25, cursor: page1.nextCursor })
        .set(user.auth)
    ).body;
    expect(new Set([...page1.hits, ...page2.hits].map((h: { documentId: string }) => h.documentId)).size).toBe(50);
  });

  it('then syncs only what changed: add 3, change 2, delete 1, rename 1', async () => {
    const level2 = await stack.sim.folderId('/Architecture/Drawings/Level 2');
    const rfis = (await simFiles('/Architecture/RFIs')).slice(0, 4);
    const added = [];
    for (const name of ['A-202 Core Plan.txt', 'A-203 Roof Plan.txt', 'notes.md'])
      added.push(
        (await stack.sim.admin.post('/files', { parentId: level2, name, text: `${name}: added after the first sync` }))
          .data,
      );
    const changed = [];
    for (const rfi of rfis.slice(0, 2))
      changed.push(
        (
          await stack.sim.admin.patch(`/files/${rfi.id}`, {
            text: `${rfi.name} answered: use detail 5/A-501`,
            mimeType: 'text/markdown',
          })
        ).data,
      );
    await stack.sim.admin.delete(`/nodes/${rfis[2].id}`);
    await stack.sim.admin.post(`/nodes/${rfis[3].id}/relocate`, { name: 'RFI-004 (closed).md' });

    const run = await syncToSearchable(stack.sut.app, user, dataSourceId);
    expect(run.mode).toBe('Incremental');
    expect(run.counts).toEqual({
      discovered: expected.length + 3 - 1,
      added: 3,
      updated: 3,
      unchanged: expected.length - 4,
      deleted: 1,
      failed: 0,
      skipped: 0,
    });
    expect(run.bytesDownloaded).toBe([...added, ...changed].reduce((sum, f) => sum + f.size, 0));
    const renamed = (
      await http().get(`/v1/projects/${projectId}/search`).query({ q: 'RFI-004 (closed)' }).set(user.auth)
    ).body.hits[0];
    expect(renamed.path).toBe('/Architecture/RFIs/RFI-004 (closed).md');
    const gone = (
      await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: rfis[2].name.replace('.md', ''), pathPrefix: '/Architecture/RFIs' })
        .set(user.auth)
    ).body.hits;
    expect(gone.map((h: { name: string }) => h.name)).not.toContain(rfis[2].name);
    const again = await syncToEnd(stack.sut.app, user, dataSourceId);
    expect(again.counts).toMatchObject({ added: 0, updated: 0, deleted: 0, failed: 0 });
    expect(again.bytesDownloaded).toBe(0);
    // What a run saw listed is kept only while it runs.
    expect(
      (
        await stack.sut.db.query(
          'SELECT count(*)::int AS n FROM connector.sync_sightings WHERE "syncRunId" = ANY($1::uuid[])',
          [[run.id, again.id]],
        )
      )[0].n,
    ).toBe(0);
  });

  it('shows the new version and time of a file saved again with the same bytes, counted unchanged', async () => {
    const text = 'RFI-090: confirm the slab edge detail.';
    const rfi = (
      await stack.sim.admin.post('/files', {
        parentId: await stack.sim.folderId('/Architecture/RFIs'),
        name: 'RFI-090.md',
        text,
      })
    ).data;
    expect((await syncToEnd(stack.sut.app, user, dataSourceId)).counts).toMatchObject({ added: 1, failed: 0 });
    await new Promise((resolve) => setTimeout(resolve, 10)); // a later modifiedAt
    const saved = (await stack.sim.admin.patch(`/files/${rfi.id}`, { text })).data;
    expect(saved.version).not.toBe(rfi.version);
    const run = await syncToEnd(stack.sut.app, user, dataSourceId);
    expect(run.counts).toMatchObject({ added: 0, updated: 0, failed: 0 });
    expect(run.bytesDownloaded).toBe(0);
    const [{ id }] = await stack.sut.db.query('SELECT id FROM connector.documents WHERE "externalId" = $1', [rfi.id]);
    const doc = (await http().get(`/v1/documents/${id}`).set(user.auth).expect(200)).body;
    expect({ version: doc.version, modifiedAt: doc.modifiedAt }).toEqual({
      version: String(saved.version),
      modifiedAt: new Date(saved.modifiedAt).toISOString(),
    });
  });

  it('finds words deep inside a long document, past its first 10,000 characters', async () => {
    const filler = Array.from(
      { length: 2500 },
      (_, i) => `Line ${i} of the general conditions, nothing to see here.`,
    ).join('\n');
    const phrase = 'liquidated damages accrue per calendar day';
    await stack.sim.admin.post('/files', {
      parentId: await stack.sim.folderId('/Architecture/Specifications'),
      name: 'General Conditions.txt',
      text: `${filler}\n${phrase}\n`,
    });
    expect(filler.length).toBeGreaterThan(130_000);
    const run = await syncToSearchable(stack.sut.app, user, dataSourceId);
    expect(run.counts).toMatchObject({ added: 1, failed: 0 });
    const hits = (
      await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: `"${phrase}"` })
        .set(user.auth)
        .expect(200)
    ).body.hits;
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      name: 'General Conditions.txt',
      snippet: expect.stringContaining('<mark>liquidated</mark> <mark>damages</mark>'),
    });
  });

  it('ranks a document that opens with the words above one that has them a few pages in, and highlights both', async () => {
    const filler = Array.from({ length: 100 }, (_, i) => `Clause ${i} of the supplementary conditions.`).join('\n');
    expect(filler.length).toBeGreaterThan(2_000);
    const folder = await stack.sim.folderId('/Architecture/Specifications');
    await stack.sim.admin.post('/files', {
      parentId: folder,
      name: 'Addendum Conditions.txt',
      text: `${filler}\nThe waterproofing warranty lasts ten years.\n`,
    });
    await stack.sim.admin.post('/files', {
      parentId: folder,
      name: 'Roofing Scope.txt',
      text: 'Waterproofing warranty: ten years, by the roofer.\n',
    });
    await syncToSearchable(stack.sut.app, user, dataSourceId);

    const hits = (
      await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: 'waterproofing warranty' })
        .set(user.auth)
        .expect(200)
    ).body.hits;

    expect(hits.map((h: { name: string }) => h.name)).toEqual(['Roofing Scope.txt', 'Addendum Conditions.txt']);
    for (const hit of hits) expect(hit.snippet).toMatch(/<mark>waterproofing<\/mark> <mark>warranty<\/mark>/i);
  });

  it('answers 409 SYNC_IN_PROGRESS with the running run, and cancels it', async () => {
    await stack.sim.admin.put('/faults', { latencyMs: 150 });
    try {
      const first = await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(user.auth).expect(202);
      const second = await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(user.auth).expect(409);
      expect(second.body).toMatchObject({ code: 'SYNC_IN_PROGRESS', syncRunId: first.body.syncRunId });
      const cancelled = await http().post(`/v1/sync-runs/${first.body.syncRunId}/cancel`).set(user.auth).expect(200);
      expect(cancelled.body.status).toBe('Cancelled');
      expect((await http().get(`/v1/data-sources/${dataSourceId}`).set(user.auth)).body.ingestionStatus).toBe('Synced');
      const history = (await http().get(`/v1/data-sources/${dataSourceId}/sync-runs`).set(user.auth).expect(200)).body;
      expect(history[0]).toMatchObject({ id: first.body.syncRunId, status: 'Cancelled' });
    } finally {
      await stack.sim.admin.put('/faults', { latencyMs: 0 });
    }
  });

  it('changes nothing of a cancelled run: steps in flight at the cancel do not commit', async () => {
    await stack.sim.admin.put('/faults', { latencyMs: 300 });
    try {
      const run = await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(user.auth).expect(202);
      const runUrl = `/v1/sync-runs/${run.body.syncRunId}`;
      await eventually(async () => (await http().get(runUrl).set(user.auth)).body.status === 'Running', 20_000, 50);
      await new Promise((resolve) => setTimeout(resolve, 400)); // listing steps are waiting on the document system now
      const cancelled = (await http().post(`${runUrl}/cancel`).set(user.auth).expect(200)).body;
      await new Promise((resolve) => setTimeout(resolve, 3000)); // every step in flight has ended by now
      const after = (await http().get(runUrl).set(user.auth).expect(200)).body;
      expect(after).toMatchObject({ status: 'Cancelled', counts: cancelled.counts });
    } finally {
      await stack.sim.admin.put('/faults', { latencyMs: 0 });
    }
  });

  it('starts a scheduled sync when it is due, once, and sets the next slot', async () => {
    const ds = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(user.auth)
      .send({
        name: 'Scheduled',
        credentialId,
        connectionId: stack.connections.connect(user),
        schedule: { intervalMinutes: 30 },
        selection: { include: [await stack.sim.folderId('/MEP')], exclude: [] },
      })
      .expect(201);
    const next = async () =>
      (
        await stack.sut.db.query(`SELECT "nextScheduledSyncAt" AS at FROM connector.data_sources WHERE id = $1`, [
          ds.body.id,
        ])
      )[0].at as Date;
    expect((await next()).getTime()).toBeGreaterThan(Date.now() + 29 * 60_000);
    const repeatable = await stack.sut.app.get<Queue>(getQueueToken(SYNC_QUEUE)).getRepeatableJobs();
    expect(repeatable.map((job) => job.id)).toContain('sweep'); // the sweep runs every minute on its own

    await stack.sut.db.query(
      `UPDATE connector.data_sources SET "nextScheduledSyncAt" = now() - interval '1 second' WHERE id = $1`,
      [ds.body.id],
    );
    const scheduler = stack.sut.app.get(SyncScheduler);
    await Promise.all([scheduler.sweep(), scheduler.sweep()]); // two workers sweeping at once
    const runs = (await http().get(`/v1/data-sources/${ds.body.id}/sync-runs`).set(user.auth).expect(200)).body;
    expect(runs).toHaveLength(1);
    expect(await waitForRun(stack.sut.app, user, runs[0].id)).toMatchObject({ mode: 'Full', status: 'Succeeded' });
    expect((await next()).getTime()).toBeGreaterThan(Date.now() + 29 * 60_000);
    await scheduler.sweep();
    expect((await http().get(`/v1/data-sources/${ds.body.id}/sync-runs`).set(user.auth).expect(200)).body).toHaveLength(
      1,
    );
    await http().delete(`/v1/data-sources/${ds.body.id}`).set(user.auth).expect(204);
  });

  it('gives non-members no hits and 404 for documents', async () => {
    const outsider = await testCaller({ tenantId: user.tenantId });
    const hit = (await http().get(`/v1/projects/${projectId}/search`).query({ q: SEED_PHRASES.pdf }).set(user.auth))
      .body.hits[0];
    expect(
      (
        await http()
          .get(`/v1/projects/${projectId}/search`)
          .query({ q: SEED_PHRASES.pdf })
          .set(outsider.auth)
          .expect(200)
      ).body.hits,
    ).toEqual([]);
    await http().get(`/v1/documents/${hit.documentId}`).set(outsider.auth).expect(404);
    await http().get(`/v1/documents/${hit.documentId}/content`).set(outsider.auth).expect(404);
    await http().get(`/v1/documents/${hit.documentId}/text`).set(outsider.auth).expect(404);
    await http().get(`/v1/data-sources/${dataSourceId}/tree`).set(outsider.auth).expect(404);
  });

  it('deletes a data source with its documents, chunks and blobs', async () => {
    const countRows = async () =>
      (
        await stack.sut.db.query(
          `SELECT (SELECT count(*) FROM connector.documents WHERE "dataSourceId" = $1)::int AS docs, (SELECT count(*) FROM connector.document_chunks WHERE "dataSourceId" = $1)::int AS chunks`,
          [dataSourceId],
        )
      )[0];
    const blobFiles = async () =>
      (await readdir(String(stack.sut.env.BLOB_DIR), { recursive: true })).filter((f) =>
        /[0-9a-f]{64}$/.test(String(f)),
      );
    expect((await countRows()).docs).toBeGreaterThan(0);
    expect((await blobFiles()).length).toBeGreaterThan(0);
    await http().delete(`/v1/data-sources/${dataSourceId}`).set(user.auth).expect(204);
    expect(await countRows()).toEqual({ docs: 0, chunks: 0 });
    expect(await blobFiles()).toEqual([]);
    await http().get(`/v1/data-sources/${dataSourceId}`).set(user.auth).expect(404);
  });
});
