import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from '../support/connector-on-simulator';

describe("A data source's own credential is changed only by those who may manage the data source", () => {
  const stack = connectorOnSimulator();
  let admin: TestCaller;
  let creator: TestCaller;
  let member: TestCaller;
  let outsider: TestCaller;
  const { http } = stack;
  const credential = { name: 'Mine', type: 'DocumentSystem', ...SEED_USERS.alice, scope: 'Tenant' };
  const asOwner = { username: 'owner', password: 'owner-password' };

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    creator = await testCaller({ tenantId: admin.tenantId });
    member = await testCaller({ tenantId: admin.tenantId, roles: ['oauth-connectors:manage'] });
    outsider = await testCaller({ tenantId: admin.tenantId, roles: ['oauth-connectors:manage'] });
  });

  /** A plain user's data source with its own (inline) credential, and a member who may manage credentials. */
  async function sharedDataSource(): Promise<{ id: string; credentialId: string }> {
    const ds = (
      await http()
        .post(`/v1/projects/${randomUUID()}/data-sources`)
        .set(creator.auth)
        .send({
          name: 'Docs',
          credential: { ...credential, instanceUrl: stack.sim.url },
          connectionId: stack.connections.connect(creator),
        })
        .expect(201)
    ).body;
    await http()
      .post(`/v1/data-sources/${ds.id}/members`)
      .set(creator.auth)
      .send({ userId: member.userId })
      .expect(201);
    return ds;
  }

  /** Each request's status and error code, sent one after the other. */
  async function answers(attempts: request.Test[]): Promise<Array<{ status: number; code?: string }>> {
    const seen = [];
    for (const attempt of attempts) {
      const res = await attempt;
      seen.push({ status: res.status, code: res.body.code });
    }
    return seen;
  }

  const pickerNames = async (dataSourceId: string): Promise<string[]> =>
    (await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(creator.auth).expect(200)).body.items.map(
      (item: { name: string }) => item.name,
    );

  it('a member who may manage credentials gets 403 DATA_SOURCE_MANAGE_FORBIDDEN for PUT, DELETE and validate', async () => {
    const ds = await sharedDataSource();
    await http().patch(`/v1/data-sources/${ds.id}`).set(member.auth).send({ name: 'x' }).expect(403);

    const attempts = [
      http()
        .put(`/v1/credentials/${ds.credentialId}`)
        .set(member.auth)
        .send({ ...credential, instanceUrl: stack.sim.url, ...asOwner }),
      http().delete(`/v1/credentials/${ds.credentialId}`).set(member.auth),
      http()
        .post(`/v1/credentials/${ds.credentialId}/validate`)
        .set(member.auth)
        .send({ connectionId: stack.connections.connect(member) }),
    ];
    expect(await answers(attempts)).toEqual(Array(3).fill({ status: 403, code: 'DATA_SOURCE_MANAGE_FORBIDDEN' }));

    expect(await pickerNames(ds.id)).not.toContain('Owner Confidential');
    expect((await http().get(`/v1/credentials/${ds.credentialId}`).set(creator.auth).expect(200)).body).toMatchObject({
      name: 'Mine',
      username: 'alice',
      lastValidation: null,
    });
  });

  it('the member still sees the credential, in GET and in the list, as before', async () => {
    const ds = await sharedDataSource();
    const seen = (await http().get(`/v1/credentials/${ds.credentialId}`).set(member.auth).expect(200)).body;
    expect(seen).toMatchObject({
      scope: 'DataSource',
      dataSourceId: ds.id,
      username: 'alice',
      passwordConfigured: true,
    });
    const listed = (await http().get('/v1/credentials').set(member.auth).expect(200)).body;
    expect(listed.find((c: { id: string }) => c.id === ds.credentialId)).toEqual(seen);
  });

  it('a caller who may not read the data source gets 404 CREDENTIAL_NOT_FOUND, as before', async () => {
    const ds = await sharedDataSource();
    const attempts = [
      http()
        .put(`/v1/credentials/${ds.credentialId}`)
        .set(outsider.auth)
        .send({ ...credential, instanceUrl: stack.sim.url, ...asOwner }),
      http().delete(`/v1/credentials/${ds.credentialId}`).set(outsider.auth),
      http()
        .post(`/v1/credentials/${ds.credentialId}/validate`)
        .set(outsider.auth)
        .send({ connectionId: stack.connections.connect(outsider) }),
    ];
    expect(await answers(attempts)).toEqual(Array(3).fill({ status: 404, code: 'CREDENTIAL_NOT_FOUND' }));
    expect(await pickerNames(ds.id)).not.toContain('Owner Confidential');
  });

  it('its creator validates it, and a tenant admin changes it', async () => {
    const ds = await sharedDataSource();
    await http()
      .post(`/v1/credentials/${ds.credentialId}/validate`)
      .set(creator.auth)
      .send({ connectionId: stack.connections.connect(creator) })
      .expect(200);
    const changed = await http()
      .put(`/v1/credentials/${ds.credentialId}`)
      .set(admin.auth)
      .send({ ...credential, instanceUrl: stack.sim.url, ...SEED_USERS.bob })
      .expect(200);
    expect(changed.body).toMatchObject({ scope: 'DataSource', dataSourceId: ds.id, username: 'bob' });
    expect(await pickerNames(ds.id)).toEqual(['Architecture']);
  });

  it('a tenant-wide credential keeps its rules: the same member changes it', async () => {
    const shared = { ...credential, name: 'Shared', instanceUrl: stack.sim.url };
    const id = (await http().post('/v1/credentials').set(admin.auth).send(shared).expect(201)).body.id;
    await http()
      .put(`/v1/credentials/${id}`)
      .set(member.auth)
      .send({ ...shared, name: 'Renamed' })
      .expect(200);
  });
});
