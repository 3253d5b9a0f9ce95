import { randomUUID } from 'node:crypto';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';

/**
 * CONTRACT.md: a `Project` credential is usable by data sources of that project only; a credential in use
 * cannot be deleted (409 CREDENTIAL_IN_USE). Narrowing it through PUT to another project while data sources
 * of a different project use it is refused the same way: they would go on logging in with it.
 */
describe('A credential in use by data sources of a project', () => {
  const stack = connectorOnSimulator();
  let admin: TestCaller;
  let creator: TestCaller;
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    creator = await testCaller({ tenantId: admin.tenantId });
  });

  const body = (scope: Record<string, unknown>) => ({
    name: 'Sim',
    type: 'DocumentSystem',
    instanceUrl: stack.sim.url,
    ...SEED_USERS.alice,
    ...scope,
  });
  const credential = async (scope: Record<string, unknown>) =>
    (await http().post('/v1/credentials').set(admin.auth).send(body(scope)).expect(201)).body.id as string;
  const dataSource = async (projectId: string, credentialId: string) =>
    (
      await http()
        .post(`/v1/projects/${projectId}/data-sources`)
        .set(creator.auth)
        .send({ name: 'Docs', credentialId, connectionId: stack.connections.connect(creator) })
        .expect(201)
    ).body.id as string;
  const put = (credentialId: string, scope: Record<string, unknown>) => {
    const { password: _kept, ...withoutPassword } = body(scope);
    return http().put(`/v1/credentials/${credentialId}`).set(admin.auth).send(withoutPassword);
  };

  it('may not be used by a data source of another project once limited to one (400 CREDENTIAL_SCOPE_MISMATCH)', async () => {
    const credentialId = await credential({ scope: 'Project', projectId: randomUUID() });
    const res = await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(creator.auth)
      .send({ name: 'Docs', credentialId, connectionId: stack.connections.connect(creator) });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'CREDENTIAL_SCOPE_MISMATCH' });
  });

  it.each([
    ['tenant-wide', (_projectId: string) => ({ scope: 'Tenant' })],
    ['limited to their project', (projectId: string) => ({ scope: 'Project', projectId })],
  ])(
    'is not narrowed to another project while %s: 409 CREDENTIAL_IN_USE, and its data sources go on browsing',
    async (_case, scope) => {
      const projectA = randomUUID();
      const credentialId = await credential(scope(projectA));
      const dataSourceId = await dataSource(projectA, credentialId);

      const narrowed = await put(credentialId, { scope: 'Project', projectId: randomUUID() });
      const stored = await http().get(`/v1/credentials/${credentialId}`).set(admin.auth).expect(200);
      const picker = await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(creator.auth);

      expect({
        put: narrowed.status,
        code: narrowed.body.code,
        scope: stored.body.scope,
        projectId: stored.body.projectId ?? null,
        picker: picker.status,
      }).toEqual({ put: 409, code: 'CREDENTIAL_IN_USE', ...withNull(scope(projectA)), picker: 200 });
    },
  );

  it('is narrowed to the project its data sources belong to', async () => {
    const projectA = randomUUID();
    const credentialId = await credential({ scope: 'Tenant' });
    const dataSourceId = await dataSource(projectA, credentialId);

    const narrowed = await put(credentialId, { scope: 'Project', projectId: projectA });
    const picker = await http().get(`/v1/data-sources/${dataSourceId}/folders`).set(creator.auth);

    expect({ put: narrowed.status, scope: narrowed.body.scope, projectId: narrowed.body.projectId }).toEqual({
      put: 200,
      scope: 'Project',
      projectId: projectA,
    });
    expect(picker.status).toBe(200);
  });
});

const withNull = (scope: Record<string, unknown>) => ({ scope: scope.scope, projectId: scope.projectId ?? null });
