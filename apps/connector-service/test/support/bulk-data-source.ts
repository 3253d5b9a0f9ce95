import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { RunningSimulator, TestCaller } from '@app/testing';
import type { ConnectorTestApp } from './connector-app';

/** A data source over a folder of `count` generated files; returns its id and the folder's file ids. */
export async function bulkDataSource(
  sim: RunningSimulator,
  app: ConnectorTestApp,
  caller: TestCaller,
  connectionId: string,
  /** A simulator user's sign-in, for the data source's credential. */
  login: { username: string; password: string },
  count: number,
  perFolder = 100,
) {
  const http = () => request(app.app.getHttpServer());
  const root = await sim.folderId('/Structural');
  const folder = (await sim.admin.post('/folders', { parentId: root, name: `bulk-${randomUUID().slice(0, 8)}` })).data;
  await sim.admin.post('/bulk-files', {
    parentId: folder.id,
    count,
    format: 'mixed',
    minSize: 2048,
    maxSize: 20 * 1024,
    perFolder,
  });
  const files: Array<{ id: string; size: number; path: string }> = (
    await sim.admin.get('/files', { params: { under: folder.id } })
  ).data;
  const credentialId = (
    await http()
      .post('/v1/credentials')
      .set(caller.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...login, scope: 'Tenant' })
      .expect(201)
  ).body.id;
  const ds = (
    await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(caller.auth)
      .send({ name: 'Bulk', credentialId, connectionId })
      .expect(201)
  ).body;
  await http()
    .put(`/v1/data-sources/${ds.id}/selection`)
    .set(caller.auth)
    .send({ include: [folder.id], exclude: [] })
    .expect(200);
  return { dataSourceId: ds.id as string, files };
}
