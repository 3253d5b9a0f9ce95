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
  const connectionId = connections.connect(admin);
  return dataSourceSelecting(app, sim, admin, { login, connectionId, include: [await sim.folderId(folder)] });
}

/**
 * A data source with its own credential (`login`), in `projectId` (a new project by default), selecting the
 * folders `include` by id; returns its id.
 */
export async function dataSourceSelecting(
  app: INestApplication,
  sim: RunningSimulator,
  caller: TestCaller,
  source: {
    login: { username: string; password: string };
    connectionId: string;
    include: string[];
    name?: string;
    projectId?: string;
  },
): Promise<string> {
  const http = () => request(app.getHttpServer());
  const credentialId = (
    await http()
      .post('/v1/credentials')
      .set(caller.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...source.login, scope: 'Tenant' })
      .expect(201)
  ).body.id;
  const dataSourceId = (
    await http()
      .post(`/v1/projects/${source.projectId ?? randomUUID()}/data-sources`)
      .set(caller.auth)
      .send({ name: source.name ?? 'Specs', credentialId, connectionId: source.connectionId })
      .expect(201)
  ).body.id;
  await http()
    .put(`/v1/data-sources/${dataSourceId}/selection`)
    .set(caller.auth)
    .send({ include: source.include, exclude: [] })
    .expect(200);
  return dataSourceId;
}
