import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import request from 'supertest';
import { RunningSimulator, testCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { dataSourceOn } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';

const GRACE_MS = 10_000;
const DOCUMENT_SYSTEM_LATENCY_MS = 2_000;

/** Resolves when `app`'s HTTP server gets a request whose path holds `path`. */
function arrivalOf(app: { getHttpServer(): import('node:http').Server }, path: string): Promise<void> {
  return new Promise((resolve) => {
    const server = app.getHttpServer();
    const seen = (req: IncomingMessage) => {
      if (!req.url?.includes(path)) return;
      server.removeListener('request', seen);
      resolve();
    };
    server.prependListener('request', seen); // before the app's router rewrites req.url
  });
}

/**
 * app.close() is what SIGTERM runs after its drain (libs/http shutdown-grace.ts): the server stops taking
 * connections, requests in flight finish, and only then do the modules' destroy hooks close what they use.
 */
describe('A connector API process that shuts down with requests in flight', () => {
  let sim: RunningSimulator;
  let sut: ConnectorTestApp | undefined;
  let stream: net.Socket | undefined;

  afterAll(async () => {
    stream?.destroy();
    await sut?.close().catch(() => undefined);
    await sim?.close();
  });

  it('answers a folder listing still waiting on the document system, and ends event streams at once', async () => {
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    sut = await startConnectorApp({
      role: 'api',
      env: { SHUTDOWN_GRACE_MS: GRACE_MS },
      overrides: [[ConnectionTokens, connections]],
    });
    const caller = await testCaller({ roles: ['admin'] });
    const dataSourceId = await dataSourceOn(sut.app, sim, connections, caller, SEED_USERS.alice, '/Structural');
    const { syncRunId } = (
      await request(sut.app.getHttpServer()).post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202)
    ).body;

    // A browser tab follows the run (no worker here: it stays Queued, and its stream open).
    stream = net.connect(Number(new URL(sut.url).port), '127.0.0.1');
    const streamEnded = new Promise<string>((resolve) => stream!.once('end', () => resolve('ended')));
    stream.write(
      `GET /v1/sync-runs/${syncRunId}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: ${caller.auth.Authorization}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    await new Promise((resolve) => stream!.once('data', resolve));

    // The folder picker waits on a slow document system, through the agents a destroy hook closes.
    await sim.admin.put('/faults', { latencyMs: DOCUMENT_SYSTEM_LATENCY_MS });
    const asked = arrivalOf(sim.app, '/folders');
    const folders = fetch(`${sut.url}/v1/data-sources/${dataSourceId}/folders`, { headers: caller.auth }).then(
      async (res) => ({ status: res.status, body: (await res.json()) as unknown }),
    );
    await asked;

    const started = Date.now();
    const closing = sut.close();
    sut = undefined;
    expect(await folders).toEqual({ status: 200, body: expect.any(Object) });
    await closing;
    // The stream does not hold the close until SHUTDOWN_GRACE_MS cuts it: it is ended as the server closes.
    expect({ stream: await streamEnded, closedWithinHalfTheGrace: Date.now() - started < GRACE_MS / 2 }).toEqual({
      stream: 'ended',
      closedWithinHalfTheGrace: true,
    });
  }, 90_000);
});
