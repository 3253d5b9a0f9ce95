import http from 'node:http';
import net from 'node:net';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { MAX_TENANT_RUN_STREAMS, SyncRunStreams } from '../src/sync/api/sync-run-streams';
import { dataSourceOn } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks for the run's events on a raw connection (a browser tab, say) and returns the connection. */
async function askForEvents(url: string, runId: string, caller: TestCaller): Promise<net.Socket> {
  const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `GET /v1/sync-runs/${runId}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Authorization: ${caller.auth.Authorization}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  return socket;
}

/**
 * GET /v1/sync-runs/{id}/events of clients that hang up, whenever they do. Each open stream polls the database
 * every second and takes one of its tenant's MAX_TENANT_RUN_STREAMS slots, so one nobody reads must not stay
 * open. The process runs no workers: the run stays Queued and a stream would otherwise stay 30 minutes.
 */
describe('Sync-run event streams of clients that hang up', () => {
  const stack = connectorOnSimulator({ role: 'api' });
  let creator: TestCaller;
  let runId: string;
  const streams = () => stack.sut.app.get(SyncRunStreams);

  beforeAll(async () => {
    creator = await testCaller({ roles: ['oauth-connectors:manage'] });
    const dataSourceId = await dataSourceOn(
      stack.sut.app,
      stack.sim,
      stack.connections,
      creator,
      SEED_USERS.alice,
      '/Structural/Specifications',
    );
    runId = (await stack.http().post(`/v1/data-sources/${dataSourceId}/sync`).set(creator.auth).expect(202)).body
      .syncRunId;
  });

  it('leaves no stream open when the client hangs up while its right to the run is being checked', async () => {
    expect(streams().count).toBe(0);
    // The database is slow for a moment: the run's lookup waits behind this lock.
    const locker = stack.sut.db.createQueryRunner();
    await locker.connect();
    await locker.startTransaction();
    await locker.query('LOCK TABLE connector.sync_runs IN ACCESS EXCLUSIVE MODE');
    try {
      const socket = await askForEvents(stack.sut.url, runId, creator);
      // The server has the request and waits on the database (a query waits for this lock).
      await eventually(async () => {
        const [{ waiting }] = await stack.sut.db.query(
          `SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND relation = 'connector.sync_runs'::regclass`,
        );
        return waiting > 0;
      });
      socket.destroy(); // the user closed the tab
      await sleep(200);
    } finally {
      await locker.commitTransaction();
      await locker.release();
    }
    await sleep(3_000);
    expect(streams().count).toBe(0);
  }, 30_000);

  it('closes the stream once its client hangs up mid-stream', async () => {
    const socket = await askForEvents(stack.sut.url, runId, creator);
    await new Promise((resolve) => socket.once('data', resolve));
    expect(streams().count).toBe(1);
    socket.destroy();
    await eventually(() => streams().count === 0, 5_000, 50);
  }, 30_000);

  it('still lets another member follow the run after many clients asked and hung up at once', async () => {
    for (let i = 0; i < MAX_TENANT_RUN_STREAMS + 10; i++) (await askForEvents(stack.sut.url, runId, creator)).destroy();
    await sleep(2_000);
    const other = await testCaller({ tenantId: creator.tenantId, roles: ['admin'] });
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.get(
        `${stack.sut.url}/v1/sync-runs/${runId}/events`,
        { headers: other.auth, agent: false },
        (res) => {
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', reject);
    });
    expect(status).toBe(200);
    expect(streams().count).toBeLessThanOrEqual(1);
  }, 30_000);
});
