import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_PHRASES, SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionEvents } from '../src/connections/connection-events';
import { DataSourcesRepository } from '../src/data-sources/data-sources.repository';
import { SyncScheduler } from '../src/sync/engine/sync-scheduler';
import { UnselectedSources } from '../src/sync/engine/unselected-sources';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { ingestedRows, syncToSearchable, waitForRun } from './support/sync-helpers';

describe('A data source whose selection becomes empty', () => {
  const stack = connectorOnSimulator();
  let admin: TestCaller;
  let member: TestCaller;
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    member = await testCaller({ tenantId: admin.tenantId });
  });

  /** A data source of its own project selecting `folder` as alice, with `member` as a member; synced when asked. */
  async function dataSource(folder: string, synced = true, connectionId = stack.connections.connect(admin)) {
    const projectId = randomUUID();
    const id = await dataSourceSelecting(stack.sut.app, stack.sim, admin, {
      login: SEED_USERS.alice,
      connectionId,
      include: [await stack.sim.folderId(folder)],
      projectId,
    });
    await http().post(`/v1/data-sources/${id}/members`).set(admin.auth).send({ userId: member.userId }).expect(201);
    if (synced) await syncToSearchable(stack.sut.app, admin, id);
    return { id, projectId };
  }

  /** What a member sees of it: search hits for the DOCX phrase, the tree's workgroups, and its documents. */
  async function seen(source: { id: string; projectId: string }) {
    const hits = (
      await http()
        .get(`/v1/projects/${source.projectId}/search`)
        .query({ q: SEED_PHRASES.docx })
        .set(member.auth)
        .expect(200)
    ).body.hits as Array<{ documentId: string }>;
    const tree = (await http().get(`/v1/data-sources/${source.id}/tree`).set(member.auth).expect(200)).body;
    return { hits: hits.length, workgroups: tree.folders.length, documents: await documentCount(source.id) };
  }

  const documentCount = (dataSourceId: string) => ingestedRows(stack.sut.db, dataSourceId);

  /** Saves the data source's selection as its admin would. */
  const select = (dataSourceId: string, include: string[]) =>
    http().put(`/v1/data-sources/${dataSourceId}/selection`).set(admin.auth).send({ include, exclude: [] }).expect(200);

  const blobNames = async () =>
    (await readdir(String(stack.sut.env.BLOB_DIR), { recursive: true }))
      .map(String)
      .filter((f) => /[0-9a-f]{64}$/.test(f));

  it('removes its documents once a member clears the selection: search, the tree and the documents show none', async () => {
    const source = await dataSource('/Structural');
    const before = await seen(source);
    expect(before).toMatchObject({ hits: 1, workgroups: 1 });
    const hit = (
      await http()
        .get(`/v1/projects/${source.projectId}/search`)
        .query({ q: SEED_PHRASES.docx })
        .set(member.auth)
        .expect(200)
    ).body.hits[0];
    const document = (await http().get(`/v1/documents/${hit.documentId}`).set(member.auth).expect(200)).body;
    expect((await blobNames()).some((name) => name.endsWith(document.contentSha256))).toBe(true);

    const cleared = await http()
      .put(`/v1/data-sources/${source.id}/selection`)
      .set(admin.auth)
      .send({ include: [], exclude: [] })
      .expect(200);

    expect(cleared.body).toMatchObject({ ingestionStatus: 'NotConfigured', selection: { include: [], exclude: [] } });
    expect(await seen(source)).toEqual({ hits: 0, workgroups: 0, documents: 0 });
    await http().get(`/v1/documents/${hit.documentId}`).set(member.auth).expect(404);
    await http().get(`/v1/documents/${hit.documentId}/text`).set(member.auth).expect(404);
    expect((await blobNames()).some((name) => name.endsWith(document.contentSha256))).toBe(false);
    // The data source itself stays, with its members and its status.
    const kept = (await http().get(`/v1/data-sources/${source.id}`).set(member.auth).expect(200)).body;
    expect(kept).toMatchObject({ ingestionStatus: 'NotConfigured' });
    const members = (await http().get(`/v1/data-sources/${source.id}/members`).set(admin.auth).expect(200)).body;
    expect(members.map((m: { userId: string }) => m.userId)).toContain(member.userId);
  });

  it('removes them too when the selection is emptied by a PATCH', async () => {
    const source = await dataSource('/Structural');
    await http()
      .patch(`/v1/data-sources/${source.id}`)
      .set(admin.auth)
      .send({ selection: { include: [], exclude: [] } })
      .expect(200);
    expect(await seen(source)).toEqual({ hits: 0, workgroups: 0, documents: 0 });
  });

  it("removes the former login's documents when a new credential discards the selection", async () => {
    const source = await dataSource('/Structural');
    const bob = (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ name: 'Bob', type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.bob, scope: 'Tenant' })
        .expect(201)
    ).body.id;
    const changed = await http().patch(`/v1/data-sources/${source.id}`).set(admin.auth).send({ credentialId: bob });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ ingestionStatus: 'NotConfigured', selection: { include: [], exclude: [] } });
    expect(await seen(source)).toEqual({ hits: 0, workgroups: 0, documents: 0 });
  });

  it('removes them when another document-system identity authorizes its connection', async () => {
    const connectionId = stack.connections.connect(admin, 'doc-user-1');
    const source = await dataSource('/Structural', true, connectionId);
    await stack.sut.app.get(ConnectionEvents).publish({ type: 'Reauthorized', connectionId, subject: 'doc-user-2' });
    const discarded = (await http().get(`/v1/data-sources/${source.id}`).set(admin.auth).expect(200)).body;
    expect(discarded).toMatchObject({ ingestionStatus: 'NotConfigured', selection: { include: [], exclude: [] } });
    expect(await seen(source)).toEqual({ hits: 0, workgroups: 0, documents: 0 });
  });

  it('cancels a sync under way when the selection is cleared: nothing it was doing comes back', async () => {
    const source = await dataSource('/Architecture', false);
    await stack.sim.admin.put('/faults', { latencyMs: 200 });
    try {
      const run = (await http().post(`/v1/data-sources/${source.id}/sync`).set(admin.auth).expect(202)).body;
      await eventually(async () => (await documentCount(source.id)) > 3, 30_000, 50);
      await http()
        .put(`/v1/data-sources/${source.id}/selection`)
        .set(admin.auth)
        .send({ include: [], exclude: [] })
        .expect(200);
      const ended = (await http().get(`/v1/sync-runs/${run.syncRunId}`).set(admin.auth).expect(200)).body;
      expect(ended).toMatchObject({ status: 'Cancelled', error: expect.stringContaining('selection') });
      await new Promise((resolve) => setTimeout(resolve, 3000)); // every step in flight has ended by now
      expect(await documentCount(source.id)).toBe(0);
      const after = (await http().get(`/v1/data-sources/${source.id}`).set(admin.auth).expect(200)).body;
      expect(after.ingestionStatus).toBe('NotConfigured');
    } finally {
      await stack.sim.admin.put('/faults', { latencyMs: 0 });
    }
  });

  it('keeps the documents of a selection saved again: a late removal (the sweep) leaves them', async () => {
    const source = await dataSource('/Structural');
    const folder = await stack.sim.folderId('/Structural');
    const put = (include: string[]) => select(source.id, include);
    await put([]);
    await put([folder]);
    await syncToSearchable(stack.sut.app, admin, source.id);
    const synced = await seen(source);
    expect(synced).toMatchObject({ hits: 1, workgroups: 1 });
    await stack.sut.app.get(SyncScheduler).sweep();
    expect(await seen(source)).toEqual(synced);
  });

  it('leaves the run of a selection saved again while the data source was being settled', async () => {
    const source = await dataSource('/Structural');
    const folder = await stack.sim.folderId('/Structural');
    const put = (include: string[]) => select(source.id, include);
    await put([]);
    // A settle (the sweep's, say) reads the data source selecting nothing; before it goes on, a member selects a
    // folder again and starts a sync.
    const sources = stack.sut.app.get(DataSourcesRepository);
    const find = sources.find.bind(sources);
    let syncRunId = '';
    jest.spyOn(sources, 'find').mockImplementationOnce(async (...args: Parameters<typeof sources.find>) => {
      const read = await find(...args);
      await put([folder]);
      syncRunId = (await http().post(`/v1/data-sources/${source.id}/sync`).set(admin.auth).expect(202)).body.syncRunId;
      return read;
    });
    await stack.sut.app.get(UnselectedSources).settle(source.id);
    const run = await waitForRun(stack.sut.app, admin, syncRunId);
    expect({ status: run.status, error: run.error }).toEqual({ status: 'Succeeded', error: null });
    expect(await seen(source)).toMatchObject({ hits: 1, workgroups: 1 });
  });

  it('starts over after the selection was cleared and saved again: a Full run, and Pending when it is cancelled', async () => {
    const source = await dataSource('/Structural');
    const folder = await stack.sim.folderId('/Structural');
    const put = (include: string[]) => select(source.id, include);
    await put([]);
    await put([folder]);
    await stack.sim.admin.put('/faults', { latencyMs: 500 });
    try {
      const run = (await http().post(`/v1/data-sources/${source.id}/sync`).set(admin.auth).expect(202)).body;
      expect(run.mode).toBe('Full'); // it starts from nothing again
      await http().post(`/v1/sync-runs/${run.syncRunId}/cancel`).set(admin.auth).expect(200);
    } finally {
      await stack.sim.admin.put('/faults', { latencyMs: 0 });
    }
    const after = (await http().get(`/v1/data-sources/${source.id}`).set(admin.auth).expect(200)).body;
    expect({ ingestionStatus: after.ingestionStatus, documents: await documentCount(source.id) }).toEqual({
      ingestionStatus: 'Pending',
      documents: 0,
    });
  });

  it('settles the others when one data source left selecting nothing cannot be settled', async () => {
    const sources = [await dataSource('/Structural'), await dataSource('/Structural')];
    for (const source of sources)
      await stack.sut.db.query(
        `UPDATE connector.data_sources SET selection = '[]', "ingestionStatus" = 'NotConfigured' WHERE id = $1`,
        [source.id],
      );
    // The first settled fails for a reason of its own (its blobs, say), not an outage.
    const settle = jest
      .spyOn(stack.sut.app.get(UnselectedSources), 'settle')
      .mockRejectedValueOnce(new Error('blob store refused'));
    const left = () => Promise.all(sources.map((source) => documentCount(source.id)));
    await stack.sut.app.get(SyncScheduler).sweep();
    await eventually(async () => settle.mock.results.length === 2 && (await left()).includes(0), 20_000);
    expect((await left()).filter((n) => n === 0)).toHaveLength(1);
    await stack.sut.app.get(SyncScheduler).sweep();
    await eventually(async () => (await left()).every((n) => n === 0), 20_000);
  });

  it('removes them after a crash between saving the empty selection and removing its documents: the sweep does', async () => {
    const source = await dataSource('/Structural');
    // What a process that died right after committing the empty selection leaves behind.
    await stack.sut.db.query(
      `UPDATE connector.data_sources SET selection = '[]', "ingestionStatus" = 'NotConfigured' WHERE id = $1`,
      [source.id],
    );
    await stack.sut.app.get(SyncScheduler).sweep();
    await eventually(async () => (await documentCount(source.id)) === 0, 20_000);
    expect(await seen(source)).toEqual({ hits: 0, workgroups: 0, documents: 0 });
  });
});
