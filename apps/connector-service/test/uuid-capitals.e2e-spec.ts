import { randomUUID } from 'node:crypto';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';

/**
 * A UUID is the same id in capitals or not (RFC 9562; search's dataSourceId and the callbackId already take
 * both). The data-source endpoints compare some ids as strings: the same id in capitals is taken for another.
 */
describe('Ids in capitals are the same ids', () => {
  const stack = connectorOnSimulator();
  let admin: TestCaller;
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
  });

  const credential = async (scope: Record<string, unknown>) =>
    (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.alice, ...scope })
        .expect(201)
    ).body.id as string;

  it("PATCH with the data source's own credentialId in capitals changes nothing (the selection stays)", async () => {
    const credentialId = await credential({ scope: 'Tenant' });
    const ds = await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(admin.auth)
      .send({ name: 'Docs', credentialId, connectionId: stack.connections.connect(admin) })
      .expect(201);
    const folder = await stack.sim.folderId('/Structural/Specifications');
    await http()
      .put(`/v1/data-sources/${ds.body.id}/selection`)
      .set(admin.auth)
      .send({ include: [folder], exclude: [] })
      .expect(200);

    const patched = await http()
      .patch(`/v1/data-sources/${ds.body.id}`)
      .set(admin.auth)
      .send({ name: 'Docs renamed', credentialId: credentialId.toUpperCase() })
      .expect(200);
    expect(patched.body.credentialId).toBe(credentialId);
    expect(patched.body.ingestionStatus).toBe('Pending');
    expect(patched.body.selection.include).toEqual([folder]);
  });

  it('creates a data source in a project named in capitals with a credential limited to that project', async () => {
    const projectId = randomUUID();
    const credentialId = await credential({ scope: 'Project', projectId });
    const res = await http()
      .post(`/v1/projects/${projectId.toUpperCase()}/data-sources`)
      .set(admin.auth)
      .send({ name: 'Docs', credentialId, connectionId: stack.connections.connect(admin) });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 201, code: undefined });
    expect(res.body.projectId).toBe(projectId);
  });

  it('creates a data source with an inline project credential whose projectId is written in capitals', async () => {
    const projectId = randomUUID();
    const res = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(admin.auth)
      .send({
        name: 'Docs',
        credential: {
          name: 'Inline',
          type: 'DocumentSystem',
          instanceUrl: stack.sim.url,
          ...SEED_USERS.alice,
          scope: 'Project',
          projectId: projectId.toUpperCase(),
        },
        connectionId: stack.connections.connect(admin),
      });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 201, code: undefined });
  });
});
