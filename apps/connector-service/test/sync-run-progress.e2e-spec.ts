import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { bulkDataSource } from './support/bulk-data-source';
import { MAX_TENANT_RUN_STREAMS } from '../src/sync/api/sync-run-streams';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { waitForExtraction, waitForRun } from './support/sync-helpers';

interface RunView {
  status: string;
  counts: { discovered: number };
  bytesDownloaded: number;
  totals: { files: number; bytes: number } | null;
  etaSeconds: number | null;
}

interface StreamEvent {
  event: string;
  data: RunView;
}

/** Reads a server-sent event stream over a raw HTTP request until the server closes it. */
function readEvents(
  url: string,
  auth: Record<string, string>,
): Promise<{ contentType: string; events: StreamEvent[] }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: auth, agent: false }, (res) => {
      const events: StreamEvent[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          const field = (name: string) =>
            block
              .find((line) => line.startsWith(`${name}:`))
              ?.slice(name.length + 1)
              .trim();
          const event = field('event');
          if (event) events.push({ event, data: JSON.parse(field('data') ?? 'null') });
        }
      });
      res.on('end', () => resolve({ contentType: String(res.headers['content-type']), events }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(60000, () => req.destroy(new Error('the stream did not end')));
  });
}

describe('Sync run progress and estimate', () => {
  const stack = connectorOnSimulator({
    // Two steps at a time (half of 4 slots): the run's bytes come in several steps rather than all at once.
    env: { SYNC_SLOTS: 4 },
    beforeClose: (sim) => sim?.admin.put('/faults', { latencyMs: 0 }),
  });
  let caller: TestCaller;
  const { http: api } = stack;

  beforeAll(async () => {
    caller = await testCaller({ roles: ['admin'] });
  });

  it('shows totals once listed, an estimate while running, and streams progress until the end', async () => {
    const { dataSourceId, files } = await bulkDataSource(
      stack.sim,
      stack.sut,
      caller,
      stack.connections.connect(caller),
      SEED_USERS.alice,
      24,
      3,
    );
    await stack.sim.admin.put('/faults', { latencyMs: 200 });
    const runId: string = (await api().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202)).body
      .syncRunId;
    const stream = readEvents(`${stack.sut.url}/v1/sync-runs/${runId}/events`, caller.auth);

    const seen: RunView[] = [];
    let run: RunView;
    do {
      run = (await api().get(`/v1/sync-runs/${runId}`).set(caller.auth).expect(200)).body;
      seen.push(run);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } while (run.status === 'Queued' || run.status === 'Running');

    const totals = { files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) };
    expect(files.length).toBe(24);
    expect(seen[0]).toMatchObject({ totals: null, etaSeconds: null });
    expect(run).toMatchObject({ status: 'Succeeded', totals, etaSeconds: 0 });
    const running = seen.filter((v) => v.status === 'Running');
    // Before the listing completes there are no totals and no estimate; after, the totals never change.
    for (const view of running) {
      if (view.totals === null) expect(view.etaSeconds).toBeNull();
      else expect(view.totals).toEqual(totals);
    }
    const estimates = running.map((v) => v.etaSeconds).filter((eta): eta is number => typeof eta === 'number');
    expect(estimates.length).toBeGreaterThan(0);
    expect(estimates.every((eta) => Number.isInteger(eta) && eta >= 0)).toBe(true);

    const { contentType, events } = await stream;
    expect(contentType).toMatch(/^text\/event-stream/);
    const progress = events.filter((e) => e.event === 'progress');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(events.at(-1)).toEqual({ event: 'end', data: expect.objectContaining({ status: 'Succeeded', totals }) });
    expect(events.at(-1)?.data.etaSeconds).toBe(0);
    expect(events.filter((e) => e.event === 'end')).toHaveLength(1);
    expect(progress.at(-1)?.data.counts.discovered).toBe(24);
    await waitForExtraction(stack.sut.app, caller, dataSourceId); // nothing left running when the app closes
  }, 90000);

  it('answers 401 without a token and 404 for an unknown run or another tenant’s; an ended run streams its end at once', async () => {
    await stack.sim.admin.put('/faults', { latencyMs: 0 });
    const { dataSourceId } = await bulkDataSource(
      stack.sim,
      stack.sut,
      caller,
      stack.connections.connect(caller),
      SEED_USERS.alice,
      2,
    );
    const runId: string = (await api().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202)).body
      .syncRunId;

    const anonymous = await api().get(`/v1/sync-runs/${runId}/events`).expect(401);
    expect(anonymous.headers['content-type']).toMatch(/json/);
    const unknown = await api().get(`/v1/sync-runs/${randomUUID()}/events`).set(caller.auth).expect(404);
    expect(unknown.body).toMatchObject({ statusCode: 404, code: 'SYNC_RUN_NOT_FOUND' });
    const stranger = await testCaller({ roles: ['admin'] });
    await api().get(`/v1/sync-runs/${runId}/events`).set(stranger.auth).expect(404);

    // An ended run: its last progress and its end at once, then the stream closes.
    await waitForRun(stack.sut.app, caller, runId);
    const { events } = await readEvents(`${stack.sut.url}/v1/sync-runs/${runId}/events`, caller.auth);
    expect(events.map((e) => [e.event, e.data.status, e.data.etaSeconds])).toEqual([
      ['progress', 'Succeeded', 0],
      ['end', 'Succeeded', 0],
    ]);
    await waitForExtraction(stack.sut.app, caller, dataSourceId);
  }, 60000);

  it('keeps one tenant to its share of open streams: the one past it gets 503 TOO_MANY_RUN_STREAMS', async () => {
    const { dataSourceId } = await bulkDataSource(
      stack.sim,
      stack.sut,
      caller,
      stack.connections.connect(caller),
      SEED_USERS.alice,
      6,
    );
    await stack.sim.admin.put('/faults', { latencyMs: 500 });
    const runId: string = (await api().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202)).body
      .syncRunId;
    const open: http.ClientRequest[] = [];
    try {
      for (let i = 0; i < MAX_TENANT_RUN_STREAMS; i++) {
        await new Promise<void>((resolve, reject) => {
          const req = http.get(
            `${stack.sut.url}/v1/sync-runs/${runId}/events`,
            { headers: caller.auth, agent: false },
            (res) => (res.statusCode === 200 ? resolve() : reject(new Error(`stream ${i}: ${res.statusCode}`))),
          );
          req.on('error', () => undefined);
          open.push(req);
        });
      }
      const refused = await api().get(`/v1/sync-runs/${runId}/events`).set(caller.auth).expect(503);
      expect(refused.body).toMatchObject({ statusCode: 503, code: 'TOO_MANY_RUN_STREAMS' });
      expect(refused.headers['retry-after']).toBe('10');
    } finally {
      open.forEach((req) => req.destroy());
      await stack.sim.admin.put('/faults', { latencyMs: 0 });
    }
    await waitForRun(stack.sut.app, caller, runId);
    await waitForExtraction(stack.sut.app, caller, dataSourceId);
  }, 60000);
});
