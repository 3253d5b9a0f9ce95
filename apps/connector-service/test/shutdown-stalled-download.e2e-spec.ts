import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { dataSourceSelecting } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';
import { syncToEnd } from './support/sync-helpers';

const GRACE_MS = 1_000;

describe('Shutting down while a client has stopped reading a download', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  let socket: net.Socket | undefined;
  let connections: SimulatorConnections;

  beforeAll(async () => {
    sim = await startSimulator();
    connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({
      overrides: [[ConnectionTokens, connections]],
      env: { EXTRACTION_WORKERS: 1, SHUTDOWN_GRACE_MS: GRACE_MS },
    });
    caller = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    socket?.destroy();
    await sut?.close().catch(() => undefined);
    await sim?.close();
  });

  it('ends SIGTERM within SHUTDOWN_GRACE_MS and its shutdown hooks: a stalled client does not hold the deploy', async () => {
    const root = await sim.admin.post('/folders', { parentId: await sim.folderId('/Structural'), name: 'big' });
    await sim.admin.post('/files', {
      parentId: root.data.id,
      name: 'big.bin',
      mimeType: 'application/octet-stream',
      generate: { format: 'text', size: 48 * 1024 * 1024 },
    });
    const dataSourceId = await dataSourceSelecting(sut.app, sim, caller, {
      login: SEED_USERS.alice,
      connectionId: connections.connect(caller),
      include: [root.data.id],
    });
    expect((await syncToEnd(sut.app, caller, dataSourceId)).counts.added).toBe(1);
    const [{ id: documentId }] = await sut.db.query(`SELECT id FROM connector.documents WHERE "dataSourceId" = $1`, [
      dataSourceId,
    ]);

    // The client asks for the 48 MiB file, reads the first bytes, then stops reading.
    socket = net.connect(Number(new URL(sut.url).port), '127.0.0.1');
    await new Promise((resolve) => socket!.once('connect', resolve));
    socket.write(
      `GET /v1/documents/${documentId}/content HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: ${caller.auth.Authorization}\r\n\r\n`,
    );
    const head = await new Promise<string>((resolve) =>
      socket!.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1', 0, 15))),
    );
    expect(head).toBe('HTTP/1.1 200 OK');
    socket.pause();
    await sleep(1_000);

    const started = Date.now();
    const outcome = await Promise.race([
      sut.close().then(() => 'closed'), // what SIGTERM runs (enableShutdownHooks), onApplicationShutdown included
      sleep(GRACE_MS + 9_000, 'still closing', { ref: false }),
    ]);
    expect({ outcome, ms: Date.now() - started }).toEqual({ outcome: 'closed', ms: expect.any(Number) });
  }, 90_000);
});
