import { randomUUID } from 'node:crypto';
import { isolatedDatabase, ReplyDroppingProxy, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';

const UNKNOWN_FOLDER = {
  statusCode: 400,
  code: 'UNKNOWN_FOLDER',
  message: 'Unknown folder(s): no-such-folder; browse to them in the folder picker first',
};
const isDataSourceDelete = (chunk: Buffer) => /DELETE FROM ("connector"\.)?"data_sources"/.test(chunk.toString());

/**
 * A create whose selection the document system refuses answers 400 and leaves nothing: no data source, no
 * credential made for it. Not even when the database fails a statement at that moment, nor while the document
 * system is slow to answer. Nor does a create that fails as it stores the data source leave its inline credential.
 */
describe('A data-source create whose selection is refused', () => {
  let proxy: ReplyDroppingProxy;
  const stack = connectorOnSimulator({
    // The app's database behind a proxy that can drop a reply.
    beforeStart: async () => {
      const databaseUrl = new URL(await isolatedDatabase());
      proxy = await new ReplyDroppingProxy({
        host: databaseUrl.hostname,
        port: Number(databaseUrl.port || 5432),
      }).start();
      const viaProxy = new URL(databaseUrl);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      return { env: { DATABASE_URL: viaProxy.toString() } };
    },
    afterClose: () => proxy?.stop(),
  });
  let admin: TestCaller;
  let user: TestCaller;
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
  }, 60_000);

  const listed = async (projectId: string, caller: TestCaller) =>
    (await http().get(`/v1/projects/${projectId}/data-sources`).set(caller.auth).expect(200)).body as unknown[];
  const credentialsNamed = async (name: string) =>
    ((await http().get('/v1/credentials').set(admin.auth).expect(200)).body as Array<{ name: string }>).filter(
      (c) => c.name === name,
    );
  const create = (projectId: string, caller: TestCaller, body: Record<string, unknown>) =>
    http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(caller.auth)
      .send({
        name: 'Docs',
        connectionId: stack.connections.connect(caller),
        selection: { include: ['no-such-folder'], exclude: [] },
        ...body,
      })
      .then((res) => res);

  it('leaves neither the data source nor its inline credential when the database drops the clean-up', async () => {
    const projectId = randomUUID();
    const name = `Own ${randomUUID()}`;
    let during = true;
    // Any statement deleting a data source while the create is under way never reaches PostgreSQL.
    void proxy.dropNext((chunk) => during && isDataSourceDelete(chunk), { reply: false });
    const refused = await create(projectId, admin, {
      credential: { name, type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.alice, scope: 'Tenant' },
    }).finally(() => (during = false));

    expect({ status: refused.status, body: refused.body }).toMatchObject({ status: 400, body: UNKNOWN_FOLDER });
    expect(await listed(projectId, admin)).toEqual([]);
    expect(await credentialsNamed(name)).toEqual([]);
  });

  it('leaves no inline credential when the database drops the data source being stored (503)', async () => {
    const name = `Own ${randomUUID()}`;
    const architecture = await stack.sim.folderId('/Architecture');
    void proxy.dropNext((chunk) => /INSERT INTO "connector"\."data_sources"/.test(chunk.toString()), { reply: false });
    const res = await create(randomUUID(), admin, {
      selection: { include: [architecture], exclude: [] },
      credential: { name, type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.alice, scope: 'Tenant' },
    });

    expect({ status: res.status, left: (await credentialsNamed(name)).length }).toEqual({ status: 503, left: 0 });
  });

  it('shows no data source while a slow document system resolves the selection, nor after it refuses', async () => {
    const projectId = randomUUID();
    const credential = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
      .expect(201);
    await stack.sim.admin.put('/faults', { latencyMs: 150 });
    try {
      let answered = false;
      const refused = create(projectId, user, { credentialId: credential.body.id }).finally(() => (answered = true));
      const seen = new Set<number>();
      while (!answered) {
        seen.add((await listed(projectId, user)).length);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const res = await refused;
      expect({ status: res.status, body: res.body }).toMatchObject({ status: 400, body: UNKNOWN_FOLDER });
      expect([...seen]).toEqual([0]);
      expect(await listed(projectId, user)).toEqual([]);
    } finally {
      await stack.sim.admin.put('/faults', { latencyMs: 0 });
    }
  });

  it('stores a selection the document system accepts with the data source: 201, Pending, its folder Selected', async () => {
    const credential = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
      .expect(201);
    const architecture = await stack.sim.folderId('/Architecture');
    const created = await create(randomUUID(), user, {
      credentialId: credential.body.id,
      selection: { include: [architecture], exclude: [] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      ingestionStatus: 'Pending',
      selection: { include: [architecture], exclude: [] },
    });
    const roots = (await http().get(`/v1/data-sources/${created.body.id}/folders`).set(user.auth).expect(200)).body;
    expect(roots.items.find((f: { id: string }) => f.id === architecture)).toMatchObject({ selection: 'Selected' });
  });
});
