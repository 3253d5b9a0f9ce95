import { randomUUID } from 'node:crypto';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_PHRASES, SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { SyncScheduler } from '../src/sync/engine/sync-scheduler';
import { UnselectedSources } from '../src/sync/engine/unselected-sources';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { dataSourceSelecting } from './support/data-source-on';
import { ingestedRows, syncToSearchable } from './support/sync-helpers';

/**
 * CONTRACT.md, "Data sources": a changed `credentialId` discards the selection. A PATCH that moves the data source
 * to another login and sends a new selection in the same request saves that selection, but what the former login
 * ingested goes as it does without one: documents one login ingested never stay readable under a data source that
 * now reads another login's account. Its next run starts from nothing (Full).
 */
describe('A PATCH that moves a data source to another login and selects that login’s folders', () => {
  const stack = connectorOnSimulator();
  let admin: TestCaller;
  let member: TestCaller;
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    member = await testCaller({ tenantId: admin.tenantId });
  });

  /** A data source of its own project selecting `folder` as alice, with `member`; synced when asked. */
  async function dataSource(folder = '/Structural', synced = true) {
    const projectId = randomUUID();
    const id = await dataSourceSelecting(stack.sut.app, stack.sim, admin, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(admin),
      include: [await stack.sim.folderId(folder)],
      projectId,
    });
    await http().post(`/v1/data-sources/${id}/members`).set(admin.auth).send({ userId: member.userId }).expect(201);
    if (synced) await syncToSearchable(stack.sut.app, admin, id);
    return { id, projectId };
  }

  const bobCredential = async () =>
    (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ name: 'Bob', type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.bob, scope: 'Tenant' })
        .expect(201)
    ).body.id as string;

  /** PATCH to bob's credential, selecting bob's /Architecture in the same request. */
  const moveToBob = async (id: string) =>
    http()
      .patch(`/v1/data-sources/${id}`)
      .set(admin.auth)
      .send({
        credentialId: await bobCredential(),
        selection: { include: [await stack.sim.folderId('/Architecture')], exclude: [] },
      });

  const searchHits = async (projectId: string, q: string) =>
    (await http().get(`/v1/projects/${projectId}/search`).query({ q }).set(member.auth).expect(200)).body
      .hits as Array<{ documentId: string }>;

  /** What a member sees: hits for alice's DOCX phrase (Structural), bob's PDF phrase (Architecture), the tree. */
  async function seen(source: { id: string; projectId: string }) {
    const tree = (await http().get(`/v1/data-sources/${source.id}/tree`).set(member.auth).expect(200)).body;
    return {
      aliceHits: (await searchHits(source.projectId, SEED_PHRASES.docx)).length,
      bobHits: (await searchHits(source.projectId, SEED_PHRASES.pdf)).length,
      workgroups: (tree.folders as Array<{ name: string }>).map((f) => f.name),
      rows: await ingestedRows(stack.sut.db, source.id),
    };
  }
  const nothing = { aliceHits: 0, bobHits: 0, workgroups: [], rows: 0 };

  it("removes alice's documents before it answers; a sync then ingests bob's from nothing", async () => {
    const source = await dataSource();
    const [hit] = await searchHits(source.projectId, SEED_PHRASES.docx);
    expect(await seen(source)).toMatchObject({ aliceHits: 1, workgroups: ['Structural'] });

    const changed = await moveToBob(source.id);

    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ ingestionStatus: 'Pending', selection: { include: [expect.any(String)] } });
    expect(await seen(source)).toEqual(nothing);
    await http().get(`/v1/documents/${hit.documentId}`).set(member.auth).expect(404);
    await http().get(`/v1/documents/${hit.documentId}/text`).set(member.auth).expect(404);

    const run = await syncToSearchable(stack.sut.app, admin, source.id);
    expect({ mode: run.mode, status: run.status }).toEqual({ mode: 'Full', status: 'Succeeded' });
    expect(await seen(source)).toMatchObject({ aliceHits: 0, bobHits: 1, workgroups: ['Architecture'] });
  });

  it('cancels the run under way as alice: nothing it was doing comes back', async () => {
    const source = await dataSource('/Architecture', false);
    await stack.sim.admin.put('/faults', { latencyMs: 200 });
    try {
      const run = (await http().post(`/v1/data-sources/${source.id}/sync`).set(admin.auth).expect(202)).body;
      await eventually(async () => (await ingestedRows(stack.sut.db, source.id)) > 3, 30_000, 50);
      expect((await moveToBob(source.id)).status).toBe(200);
      const ended = (await http().get(`/v1/sync-runs/${run.syncRunId}`).set(admin.auth).expect(200)).body;
      expect(ended).toMatchObject({ status: 'Cancelled' });
      await new Promise((resolve) => setTimeout(resolve, 3000)); // every step in flight has ended by now
      expect(await ingestedRows(stack.sut.db, source.id)).toBe(0);
    } finally {
      await stack.sim.admin.put('/faults', { latencyMs: 0 });
    }
  });

  it("leaves the removal to the sweep when it fails after the commit, and never takes bob's documents", async () => {
    const source = await dataSource();
    // What a process that died right after committing the change leaves behind.
    jest.spyOn(stack.sut.app.get(UnselectedSources), 'settle').mockRejectedValueOnce(new Error('process died'));
    expect((await moveToBob(source.id)).status).toBe(200);
    expect(await seen(source)).toMatchObject({ aliceHits: 1 });

    await stack.sut.app.get(SyncScheduler).sweep();
    await eventually(async () => (await ingestedRows(stack.sut.db, source.id)) === 0, 20_000);
    expect(await seen(source)).toEqual(nothing);

    await syncToSearchable(stack.sut.app, admin, source.id);
    const synced = await seen(source);
    expect(synced).toMatchObject({ bobHits: 1, workgroups: ['Architecture'] });
    await stack.sut.app.get(SyncScheduler).sweep();
    await new Promise((resolve) => setTimeout(resolve, 1000)); // a settle job the sweep queued would have run
    expect(await seen(source)).toEqual(synced);
  });

  it("starts no sync as bob while alice's documents are left, and has them removed by its tenant's job", async () => {
    const source = await dataSource();
    jest.spyOn(stack.sut.app.get(UnselectedSources), 'settle').mockRejectedValueOnce(new Error('process died'));
    expect((await moveToBob(source.id)).status).toBe(200);
    // A run as bob now would leave alice's documents with his: the start queues their removal and answers 409.
    const refused = await http().post(`/v1/data-sources/${source.id}/sync`).set(admin.auth).expect(409);
    expect(refused.body.code).toBe('DATA_SOURCE_CHANGED');
    await eventually(async () => (await ingestedRows(stack.sut.db, source.id)) === 0, 20_000);

    const run = await syncToSearchable(stack.sut.app, admin, source.id);

    expect({ mode: run.mode, status: run.status }).toEqual({ mode: 'Full', status: 'Succeeded' });
    expect(await seen(source)).toMatchObject({ aliceHits: 0, bobHits: 1, workgroups: ['Architecture'] });
  });
});
