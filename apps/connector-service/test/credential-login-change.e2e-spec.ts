import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_PHRASES, SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { ingestedRows, syncToSearchable } from './support/sync-helpers';

type Login = { username: string; password: string };

/**
 * CONTRACT.md, "Data sources": a data source's selection is discarded when it comes to log in as another
 * document-system user. `PUT /v1/credentials/{id}` changing the credential's username (or its address within
 * the same origin) does that for every data source using it, as a changed credentialId does: empty selection,
 * NotConfigured, its run stopped and what it ingested as the former user removed. A new password keeps all.
 */
describe('A credential changed in place to log in as another user', () => {
  let locker: Client;
  const stack = connectorOnSimulator({ beforeClose: () => locker?.end() });
  let admin: TestCaller;
  let member: TestCaller;
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    member = await testCaller({ tenantId: admin.tenantId });
    locker = new Client({ connectionString: String(stack.sut.env.DATABASE_URL) });
    await locker.connect();
  });

  const credentialBody = (login: Partial<Login>, instanceUrl = stack.sim.url) => ({
    name: 'Sim',
    type: 'DocumentSystem',
    instanceUrl,
    ...login,
    scope: 'Tenant',
  });
  const tenantCredential = async () =>
    (await http().post('/v1/credentials').set(admin.auth).send(credentialBody(SEED_USERS.alice)).expect(201)).body
      .id as string;
  const putCredential = (id: string, login: Partial<Login>, instanceUrl?: string) =>
    http().put(`/v1/credentials/${id}`).set(admin.auth).send(credentialBody(login, instanceUrl));

  /** A data source of its own project on the credential, selecting `folder`, with `member`; synced when asked. */
  async function dataSource(credentialId: string, folder = '/Structural', synced = true) {
    const projectId = randomUUID();
    const id = (
      await http()
        .post(`/v1/projects/${projectId}/data-sources`)
        .set(admin.auth)
        .send({ name: 'Specs', credentialId, connectionId: stack.connections.connect(admin) })
        .expect(201)
    ).body.id as string;
    const include = [await stack.sim.folderId(folder)];
    await http().put(`/v1/data-sources/${id}/selection`).set(admin.auth).send({ include, exclude: [] }).expect(200);
    await http().post(`/v1/data-sources/${id}/members`).set(admin.auth).send({ userId: member.userId }).expect(201);
    if (synced) await syncToSearchable(stack.sut.app, admin, id);
    return { id, projectId };
  }

  const view = async (id: string) => (await http().get(`/v1/data-sources/${id}`).set(member.auth).expect(200)).body;

  const documentCount = (dataSourceId: string) => ingestedRows(stack.sut.db, dataSourceId);

  /** What a member sees of it: its selection and status, search hits for the DOCX phrase, the tree, its documents. */
  async function seen(source: { id: string; projectId: string }) {
    const { selection, ingestionStatus } = await view(source.id);
    const search = await http()
      .get(`/v1/projects/${source.projectId}/search`)
      .query({ q: SEED_PHRASES.docx })
      .set(member.auth)
      .expect(200);
    const tree = (await http().get(`/v1/data-sources/${source.id}/tree`).set(member.auth).expect(200)).body;
    return {
      included: selection.include.length,
      ingestionStatus,
      hits: search.body.hits.length,
      workgroups: tree.folders.length,
      documents: await documentCount(source.id),
    };
  }
  const discarded = { included: 0, ingestionStatus: 'NotConfigured', hits: 0, workgroups: 0, documents: 0 };

  it("discards the selection of every data source using it and removes what alice's login ingested, once it is bob's", async () => {
    const credentialId = await tenantCredential();
    const sources = [await dataSource(credentialId), await dataSource(credentialId)];
    const hit = (
      await http()
        .get(`/v1/projects/${sources[0].projectId}/search`)
        .query({ q: SEED_PHRASES.docx })
        .set(member.auth)
        .expect(200)
    ).body.hits[0];
    for (const source of sources)
      expect(await seen(source)).toMatchObject({ included: 1, ingestionStatus: 'Synced', hits: 1, workgroups: 1 });

    const changed = await putCredential(credentialId, SEED_USERS.bob);

    expect({ status: changed.status, username: changed.body.username }).toEqual({ status: 200, username: 'bob' });
    for (const source of sources) expect(await seen(source)).toEqual(discarded);
    await http().get(`/v1/documents/${hit.documentId}`).set(member.auth).expect(404);
    // Bob's own folders may be picked and synced as bob.
    const architecture = await stack.sim.folderId('/Architecture');
    await http()
      .put(`/v1/data-sources/${sources[0].id}/selection`)
      .set(admin.auth)
      .send({ include: [architecture], exclude: [] })
      .expect(200);
  });

  it('cancels the run under way as alice: nothing it was doing comes back', async () => {
    const credentialId = await tenantCredential();
    const source = await dataSource(credentialId, '/Architecture', false);
    await stack.sim.admin.put('/faults', { latencyMs: 200 });
    try {
      const run = (await http().post(`/v1/data-sources/${source.id}/sync`).set(admin.auth).expect(202)).body;
      await eventually(async () => (await documentCount(source.id)) > 3, 30_000, 50);
      await putCredential(credentialId, SEED_USERS.bob).expect(200);
      const ended = (await http().get(`/v1/sync-runs/${run.syncRunId}`).set(admin.auth).expect(200)).body;
      expect(ended).toMatchObject({ status: 'Cancelled', error: expect.stringContaining('selection') });
      await new Promise((resolve) => setTimeout(resolve, 3000)); // every step in flight has ended by now
      expect(await seen(source)).toEqual(discarded);
    } finally {
      await stack.sim.admin.put('/faults', { latencyMs: 0 });
    }
  });

  it('keeps the selection and the documents when only the password (or the name) changes: the same account', async () => {
    const credentialId = await tenantCredential();
    const source = await dataSource(credentialId);
    const before = await seen(source);
    expect(before).toMatchObject({ included: 1, ingestionStatus: 'Synced', hits: 1 });

    await putCredential(credentialId, SEED_USERS.alice, `${stack.sim.url}/`).expect(200);
    await http()
      .put(`/v1/credentials/${credentialId}`)
      .set(admin.auth)
      .send({ ...credentialBody({ username: 'alice' }), name: 'Renamed' })
      .expect(200);

    expect(await seen(source)).toEqual(before);
  });

  it('discards it for another address at the same origin; a move to another origin waits for the creator, as before', async () => {
    const [movedWithin, movedOut] = [await tenantCredential(), await tenantCredential()];
    const [sameOrigin, otherOrigin] = [await dataSource(movedWithin), await dataSource(movedOut)];
    const elsewhere = new URL(stack.sim.url);
    elsewhere.port = String(Number(elsewhere.port) === 9 ? 10 : 9);

    await putCredential(movedWithin, SEED_USERS.alice, `${stack.sim.url}/another-site`).expect(200);
    await putCredential(movedOut, SEED_USERS.alice, elsewhere.origin).expect(200);

    expect(await seen(sameOrigin)).toEqual(discarded);
    // The origin rule: NeedsReauth until its creator confirms the move, which keeps the selection (token-origin spec).
    expect(await seen(otherOrigin)).toMatchObject({ included: 1, ingestionStatus: 'NeedsReauth', hits: 1 });
  });

  it('waits for a change of the data source under way, which reads the credential after locking the data source', async () => {
    const credentialId = await tenantCredential();
    const source = await dataSource(credentialId, '/Structural', false);
    // What a PATCH of the data source holds (its row), then asks for (its credential, to record its origin).
    await locker.query('BEGIN');
    try {
      await locker.query('SELECT 1 FROM connector.data_sources WHERE id = $1 FOR UPDATE', [source.id]);
      let answered = false;
      const put = putCredential(credentialId, SEED_USERS.bob).then((res) => ((answered = true), res));
      await eventually(async () => answered || (await waitingForLocks()) > 0);
      await locker.query(`SET LOCAL statement_timeout = '5s'`);
      await locker.query(
        `SELECT c."instanceUrl" FROM connector.data_sources ds JOIN connector.credentials c ON c.id = ds."credentialId"
         WHERE ds.id = $1 FOR SHARE OF c`,
        [source.id],
      );
      await locker.query('COMMIT');
      expect((await put).status).toBe(200);
    } finally {
      await locker.query('ROLLBACK');
    }
    expect(await seen(source)).toMatchObject({ included: 0, ingestionStatus: 'NotConfigured' });
  });

  it('discards the selection of a data source pointed at it while the change waited for the credential', async () => {
    const credentialId = await tenantCredential();
    const [using, newcomer] = [
      await dataSource(credentialId, '/Structural', false),
      await dataSource(await tenantCredential(), '/Structural', false),
    ];
    // What a data source created with a selection on this credential holds, then commits.
    await locker.query('BEGIN');
    try {
      await locker.query('SELECT 1 FROM connector.credentials WHERE id = $1 FOR KEY SHARE', [credentialId]);
      const put = putCredential(credentialId, SEED_USERS.bob).then((res) => res);
      await eventually(async () => (await waitingForLocks()) > 0);
      await locker.query('UPDATE connector.data_sources SET "credentialId" = $2 WHERE id = $1', [
        newcomer.id,
        credentialId,
      ]);
      await locker.query('COMMIT');
      expect((await put).status).toBe(200);
    } finally {
      await locker.query('ROLLBACK');
    }
    for (const source of [using, newcomer])
      expect(await seen(source)).toMatchObject({ included: 0, ingestionStatus: 'NotConfigured' });
  });

  /** Backends of this app's database waiting for a lock. */
  const waitingForLocks = async () =>
    (
      await locker.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      )
    ).rows[0].count;
});
