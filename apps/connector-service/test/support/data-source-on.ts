import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { RunningSimulator, TestCaller } from '@app/testing';
import { SimulatorConnections } from './simulator-connections';

/** A data source of a new project, on the simulator as `login`, that selects `folder`; returns its id. */
export async function dataSourceOn(
  app: INestApplication,
  sim: RunningSimulator,
  connections: SimulatorConnections,
  admin: TestCaller,
  login: { username: string; password: string },
  folder: string,
): Promise<string> {
  const http = () => request(app.getHttpServer());
  const credentialId = (
    await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...login, scope: 'Tenant' })
      .expect(201)
  ).body.id;
  const dataSourceId = (
    await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(admin.auth)
      .send({ name: 'Specs', credentialId, connectionId: connections.connect(admin) })
      .expect(201)
  ).body.id;
  await http()
    .put(`/v1/data-sources/${dataSourceId}/selection`)
    .set(admin.auth)
    .send({ include: [await sim.folderId(folder)], exclude: [] })
    .expect(200);
  return dataSourceId;
}
