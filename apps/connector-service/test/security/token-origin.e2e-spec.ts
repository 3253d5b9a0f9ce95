import { randomUUID } from 'node:crypto';
import { HttpPeer, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../../document-system-simulator/src/store/seed';
import { DataSourceInstanceOrigin1795300052000 } from '../../src/database/migrations/1795300052000-data-source-instance-origin';
import { connectorOnSimulator } from '../support/connector-on-simulator';
import { syncToEnd } from '../support/sync-helpers';

/**
 * CONTRACT.md, "Safe by default": a data source's creator's OAuth tokens go only to the instance origin
 * recorded for it. A credential moved to another origin (by whoever may manage credentials) puts the
 * data sources using it in NeedsReauth, their picker and syncs answer 409 REAUTH_REQUIRED, and nothing
 * reaches the new origin until their creator (or an admin) PATCHes them.
 */
describe('A data source’s tokens go only to the instance origin its creator chose', () => {
  let elsewhere: HttpPeer;
  const stack = connectorOnSimulator({ beforeClose: () => elsewhere.stop() });
  let manager: TestCaller;
  let admin: TestCaller;
  let creator: TestCaller;
  let member: TestCaller;
  const { http } = stack;
  const projectId = randomUUID();
  const credentialBody = (instanceUrl: string, password?: string) => ({
    name: 'Docs',
    type: 'DocumentSystem',
    instanceUrl,
    ...SEED_USERS.alice,
    ...(password ? { password } : {}),
    scope: 'Tenant',
  });

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    manager = await testCaller({ tenantId: admin.tenantId, roles: ['oauth-connectors:manage'] });
    creator = await testCaller({ tenantId: admin.tenantId });
    member = await testCaller({ tenantId: admin.tenantId });
    // The other origin: answers like a document system, and records what it is sent.
    elsewhere = await new HttpPeer((req, res) => {
      const body =
        req.path === '/api/v1/session' ? { sessionToken: 'st', expiresIn: 600 } : { items: [], nextCursor: null };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    }).start();
  });

  const bearerTokensSeen = () => elsewhere.received.filter((r) => r.headers.authorization).length;
  const view = async (id: string, caller = creator) =>
    (await http().get(`/v1/data-sources/${id}`).set(caller.auth).expect(200)).body;

  async function dataSourceOnSimulator(owner = creator) {
    const credentialId = (
      await http().post('/v1/credentials').set(manager.auth).send(credentialBody(stack.sim.url)).expect(201)
    ).body.id;
    const id = (
      await http()
        .post(`/v1/projects/${projectId}/data-sources`)
        .set(owner.auth)
        .send({ name: 'Docs', credentialId, connectionId: stack.connections.connect(owner) })
        .expect(201)
    ).body.id as string;
    await http()
      .put(`/v1/data-sources/${id}/selection`)
      .set(owner.auth)
      .send({ include: [await stack.sim.folderId('/Structural/Specifications')], exclude: [] })
      .expect(200);
    await http().post(`/v1/data-sources/${id}/members`).set(owner.auth).send({ userId: member.userId }).expect(201);
    return { id, credentialId };
  }

  const moveCredential = (credentialId: string, instanceUrl: string, password = 'any') =>
    http()
      .put(`/v1/credentials/${credentialId}`)
      .set(manager.auth)
      .send(credentialBody(instanceUrl, password))
      .expect(200);

  it('after the credential moves to another origin: picker and sync answer 409 REAUTH_REQUIRED, the data source shows NeedsReauth, and nothing goes there', async () => {
    const { id, credentialId } = await dataSourceOnSimulator();
    await http().get(`/v1/data-sources/${id}/folders`).set(creator.auth).expect(200);
    expect(await view(id)).toMatchObject({ ingestionStatus: 'Pending' });

    await moveCredential(credentialId, elsewhere.url);

    for (const caller of [creator, member, admin]) {
      const picker = await http().get(`/v1/data-sources/${id}/folders`).set(caller.auth).expect(409);
      expect(picker.body).toMatchObject({ statusCode: 409, code: 'REAUTH_REQUIRED' });
      const sync = await http().post(`/v1/data-sources/${id}/sync`).set(caller.auth).expect(409);
      expect(sync.body).toMatchObject({ statusCode: 409, code: 'REAUTH_REQUIRED' });
      expect(await view(id, caller)).toMatchObject({ ingestionStatus: 'NeedsReauth' });
    }
    expect((await http().get(`/v1/data-sources/${id}/sync-runs`).set(creator.auth).expect(200)).body).toEqual([]);
    const listed = (await http().get(`/v1/projects/${projectId}/data-sources`).set(creator.auth).expect(200)).body;
    expect(listed.find((ds: { id: string }) => ds.id === id)).toMatchObject({ ingestionStatus: 'NeedsReauth' });
    // A member who is not its creator cannot confirm the move.
    await http().patch(`/v1/data-sources/${id}`).set(member.auth).send({}).expect(403);
    expect(bearerTokensSeen()).toBe(0);
    expect(elsewhere.received).toEqual([]);
  });

  it('its creator’s PATCH records the new origin: the data source is back where it was, and works there', async () => {
    const { id, credentialId } = await dataSourceOnSimulator();
    await moveCredential(credentialId, elsewhere.url);
    expect(await view(id)).toMatchObject({ ingestionStatus: 'NeedsReauth' });
    const before = bearerTokensSeen();

    const patched = await http().patch(`/v1/data-sources/${id}`).set(creator.auth).send({}).expect(200);
    expect(patched.body).toMatchObject({ ingestionStatus: 'Pending' });
    await http().get(`/v1/data-sources/${id}/folders`).set(creator.auth).expect(200);
    expect(bearerTokensSeen()).toBeGreaterThan(before);
  });

  it('a PATCH confirming the move after a run met it puts a synced data source back to Synced, not Pending', async () => {
    const { id, credentialId } = await dataSourceOnSimulator();
    // The credential's password is the simulator's, so the run works.
    await moveCredential(credentialId, `${stack.sim.url}/`, SEED_USERS.alice.password);
    expect((await syncToEnd(stack.sut.app, creator, id, 30_000)).status).toBe('Succeeded');
    await moveCredential(credentialId, elsewhere.url);
    // What a run that met the move stores (failed-steps: the run ends, its data source NeedsReauth).
    await stack.sut.db.query(`UPDATE connector.data_sources SET "ingestionStatus" = 'NeedsReauth' WHERE id = $1`, [id]);

    const patched = await http().patch(`/v1/data-sources/${id}`).set(creator.auth).send({}).expect(200);
    expect(patched.body).toMatchObject({ ingestionStatus: 'Synced' });
  });

  it('a selection its creator sends confirms the move only when it is saved: a refused one leaves it NeedsReauth', async () => {
    const { id, credentialId } = await dataSourceOnSimulator();
    await moveCredential(credentialId, elsewhere.url);
    const folder = await stack.sim.folderId('/Structural/Specifications');
    const refused = await http()
      .put(`/v1/data-sources/${id}/selection`)
      .set(creator.auth)
      .send({ include: [folder], exclude: [folder] });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code: 'CONFLICTING_SELECTION' });
    expect(await view(id)).toMatchObject({ ingestionStatus: 'NeedsReauth' });
    await http().post(`/v1/data-sources/${id}/sync`).set(creator.auth).expect(409);

    const saved = await http()
      .put(`/v1/data-sources/${id}/selection`)
      .set(creator.auth)
      .send({ include: [], exclude: [] })
      .expect(200);
    expect(saved.body).toMatchObject({ ingestionStatus: 'NotConfigured' });
  });

  it('a tenant admin’s PATCH records it too; moving back to the recorded origin needs nothing', async () => {
    const { id, credentialId } = await dataSourceOnSimulator();
    await moveCredential(credentialId, elsewhere.url);
    await http().patch(`/v1/data-sources/${id}`).set(admin.auth).send({ name: 'Docs, confirmed' }).expect(200);
    expect(await view(id)).toMatchObject({ name: 'Docs, confirmed', ingestionStatus: 'Pending' });

    await moveCredential(credentialId, stack.sim.url);
    expect(await view(id)).toMatchObject({ ingestionStatus: 'NeedsReauth' });
    await moveCredential(credentialId, elsewhere.url);
    expect(await view(id)).toMatchObject({ ingestionStatus: 'Pending' });
  });

  it('keeps working when the credential changes within its origin (another path, a trailing slash)', async () => {
    const { id, credentialId } = await dataSourceOnSimulator();
    await moveCredential(credentialId, `${stack.sim.url}/`, SEED_USERS.alice.password);
    expect(await view(id)).toMatchObject({ ingestionStatus: 'Pending' });
    await http().get(`/v1/data-sources/${id}/folders`).set(creator.auth).expect(200);
  });

  it('records the origin of the credential a PATCH switches to, and of an inline credential', async () => {
    const { id } = await dataSourceOnSimulator();
    const other = (
      await http().post('/v1/credentials').set(manager.auth).send(credentialBody(elsewhere.url, 'pw')).expect(201)
    ).body.id;
    const switched = await http()
      .patch(`/v1/data-sources/${id}`)
      .set(creator.auth)
      .send({ credentialId: other })
      .expect(200);
    expect(switched.body).toMatchObject({ credentialId: other, ingestionStatus: 'NotConfigured' });

    const inline = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(creator.auth)
      .send({
        name: 'Own',
        credential: credentialBody(stack.sim.url, SEED_USERS.alice.password),
        connectionId: stack.connections.connect(creator),
      })
      .expect(201);
    expect(inline.body.ingestionStatus).toBe('NotConfigured');
    await http().get(`/v1/data-sources/${inline.body.id}/folders`).set(creator.auth).expect(200);
  });

  it('the migration backfills the origin from each data source’s credential as it is (scheme and host lower-cased, path dropped)', async () => {
    const { id, credentialId } = await dataSourceOnSimulator();
    const port = new URL(stack.sim.url).port;
    await stack.sut.db.query(`UPDATE connector.credentials SET "instanceUrl" = $2 WHERE id = $1`, [
      credentialId,
      `HTTP://LocalHost:${port}/docs`,
    ]);
    const migration = new DataSourceInstanceOrigin1795300052000();
    const runner = stack.sut.db.createQueryRunner();
    try {
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const [row] = await stack.sut.db.query(`SELECT "instanceOrigin" FROM connector.data_sources WHERE id = $1`, [id]);
    expect(row.instanceOrigin).toBe(`http://localhost:${port}`);
    const columns = await stack.sut.db.query(
      `SELECT is_nullable FROM information_schema.columns
       WHERE table_schema = 'connector' AND table_name = 'data_sources' AND column_name = 'instanceOrigin'`,
    );
    expect(columns).toEqual([{ is_nullable: 'NO' }]);
  });
});
