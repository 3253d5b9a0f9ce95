import { randomUUID } from 'node:crypto';
import type { RunningSimulator, TestCaller } from '@app/testing';
import type { ConnectorTestApp } from './connector-app';
import { dataSourceSelecting } from './data-source-on';

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
  const dataSourceId = await dataSourceSelecting(app.app, sim, caller, {
    login,
    connectionId,
    include: [folder.id],
    name: 'Bulk',
  });
  return { dataSourceId, files };
}
