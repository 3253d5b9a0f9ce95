import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { SimulatorConnections } from './support/simulator-connections';

/**
 * Shapes a fuzzer sent where a data source's body wants an object (`schedule`, `selection`, `credential`): an
 * array passed the nested validation (it has no element to check), and `schedule: []` then broke the insert (500).
 */
describe('A data source body with an array where an object belongs', () => {
  let sim: RunningSimulator;
  let connections: SimulatorConnections;
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sim = await startSimulator();
    connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({ overrides: [[ConnectionTokens, connections]] });
    admin = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    await sut.close();
    await sim.close();
  });

  const credential = async () =>
    (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
        .expect(201)
    ).body.id as string;
  const create = (projectId: string, body: Record<string, unknown>) =>
    http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(admin.auth)
      .send({ name: 'Docs', connectionId: connections.connect(admin), ...body });
  const refusal = (res: request.Response) => ({
    status: res.status,
    code: res.body.code,
    field: res.body.details?.[0]?.field,
  });

  it.each([['schedule'], ['selection'], ['credential']])(
    'refuses %s: [] on create with 400 VALIDATION_FAILED naming it, and stores nothing',
    async (field) => {
      const projectId = randomUUID();
      const credentialId = field === 'credential' ? undefined : await credential();
      const res = await create(projectId, { credentialId, [field]: [] });
      expect(refusal(res)).toEqual({ status: 400, code: 'VALIDATION_FAILED', field });
      expect((await http().get(`/v1/projects/${projectId}/data-sources`).set(admin.auth).expect(200)).body).toEqual([]);
    },
  );

  it('refuses schedule: [] on PATCH with 400 and keeps the schedule', async () => {
    const created = await create(randomUUID(), { credentialId: await credential(), schedule: { intervalMinutes: 60 } });
    expect(created.status).toBe(201);
    const res = await http().patch(`/v1/data-sources/${created.body.id}`).set(admin.auth).send({ schedule: [] });
    expect(refusal(res)).toEqual({ status: 400, code: 'VALIDATION_FAILED', field: 'schedule' });
    const now = await http().get(`/v1/data-sources/${created.body.id}`).set(admin.auth).expect(200);
    expect(now.body.schedule).toEqual({ intervalMinutes: 60 });
  });
});
