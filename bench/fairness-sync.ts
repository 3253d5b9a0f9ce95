/**
 * `npm run bench:fairness-sync`: tenant B's data source of 20 files, time from "sync" until its text is
 * searchable (run ended, no document Pending), alone and then while tenant A syncs 20,000 files from a slow
 * document system (every call on A's folder answered after 200 ms, downloads at 1 MB/s). Two worker
 * processes with the default SYNC_SLOTS, an API process, the simulator; each of B's rounds syncs a new data
 * source of its own (an unchanged one would take nothing). Prints the medians of the rounds and their
 * ratio (target ≤ 1.5×). A's run need not end: B's rounds are measured while it is in full swing, and the
 * bench stops it by stopping the workers. `BENCH_A_FILES` and `BENCH_ROUNDS` scale it.
 */
import axios, { AxiosInstance } from 'axios';
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { Test } from '@nestjs/testing';
import type { INestApplication } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { FairShare, fairShareToken } from '@app/queue';
import {
  configureTestApp,
  killChild,
  listenOnLoopback,
  startChildApp,
  TEST_APP_OPTIONS,
  testCaller,
  testEnv,
} from '@app/testing';
import { AppModule } from '../apps/connector-service/src/app.module';
import { ConnectionTokens } from '../apps/connector-service/src/document-system/connection-tokens.port';
import { SYNC_QUEUE } from '../apps/connector-service/src/sync/sync.jobs';
import { OpenSimulatorConnections } from '../apps/connector-service/test/support/open-simulator-connections';
import { benchDatabase, failBench } from './bench-database';

const A_FILES = Number(process.env.BENCH_A_FILES ?? 20_000);
const B_FILES = 20;
// Five rounds each: B alone moves by a third from run to run, and the ratio with it.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SLOW_CALL_MS = 200;
const SLOW_BYTES_PER_SECOND = 1_000_000;
/** How long A's sync runs before B's rounds start, so its listings and downloads fill its share. */
const A_HEAD_START_MS = 20_000;
const TARGET = 1.5;

type Caller = Awaited<ReturnType<typeof testCaller>>;

export interface FairnessSyncResult {
  aFiles: number;
  aloneMs: number[];
  duringMs: number[];
  aloneMedianMs: number;
  duringMedianMs: number;
  ratio: number;
  /** The most sync slots A held while B's rounds ran, and all slots. */
  aHeldMax: number;
  slots: number;
  target: number;
  met: boolean;
}

export async function run(): Promise<FairnessSyncResult> {
  const db = await benchDatabase();
  const children: ChildProcess[] = [];
  let api: INestApplication | undefined;
  try {
    const simPort = 20_000 + Math.floor(Math.random() * 20_000);
    const simUrl = `http://127.0.0.1:${simPort}`;
    const sim = await startChildApp('apps/document-system-simulator/test/support/run-simulator.ts', {
      PORT: simPort,
      PUBLIC_BASE_URL: simUrl,
      LOG_LEVEL: 'silent',
    });
    children.push(sim);
    const admin = axios.create({ baseURL: `${simUrl}/admin` });
    const structural = (await admin.get('/folders', { params: { path: '/Structural' } })).data.id as string;
    const env = testEnv({
      DATABASE_URL: db.url,
      BLOB_DIR: join(tmpdir(), `bench-blobs-${randomBytes(4).toString('hex')}`),
      ALLOW_INSECURE_URLS: true,
      LOG_LEVEL: 'silent',
      EXTRACTION_NICE: 10,
    });
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot({ role: 'api', env })] })
      .overrideProvider(ConnectionTokens)
      .useValue(new OpenSimulatorConnections(simUrl))
      .compile();
    api = configureTestApp(moduleRef.createNestApplication(TEST_APP_OPTIONS), 'bench');
    await listenOnLoopback(api);
    for (let i = 0; i < 2; i++)
      children.push(
        await startChildApp('apps/connector-service/test/support/run-connector.ts', env, 'worker', {
          TEST_SIMULATOR_URL: simUrl,
        }),
      );
    const app = api;
    const fairShare = app.get<FairShare>(fairShareToken(SYNC_QUEUE));
    const tenantA = await testCaller({ roles: ['admin'] });
    const tenantB = await testCaller({ roles: ['admin'] });

    // A first round warms the processes up (connections, extraction threads, compiled code): not counted.
    console.log(`B warm-up: ${await roundOfB(app, admin, structural, tenantB)} ms`);
    const aloneMs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) aloneMs.push(await roundOfB(app, admin, structural, tenantB));
    console.log(`B alone: ${aloneMs.map((ms) => `${ms} ms`).join(', ')}`);

    const slowRoot = (await admin.post('/folders', { parentId: structural, name: `slow-${randomUUID()}` })).data.id;
    await admin.post('/bulk-files', {
      parentId: slowRoot,
      count: A_FILES,
      format: 'mixed',
      minSize: 2048,
      maxSize: 20 * 1024,
      perFolder: 250,
    });
    await admin.put('/faults', {
      latencyMs: SLOW_CALL_MS,
      bytesPerSecond: SLOW_BYTES_PER_SECOND,
      slowUnder: [slowRoot],
    });
    const aSource = await dataSource(app, tenantA, simUrl, slowRoot);
    const aRun = await startSync(app, tenantA, aSource);
    await new Promise((resolve) => setTimeout(resolve, A_HEAD_START_MS));

    let aHeldMax = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        aHeldMax = Math.max(aHeldMax, (await fairShare.state()).held[tenantA.tenantId] ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const duringMs: number[] = [];
    const cpuBefore = cpuNow(children);
    for (let i = 0; i < ROUNDS; i++) duringMs.push(await roundOfB(app, admin, structural, tenantB));
    printCpu(cpuBefore, cpuNow(children));
    watching = false;
    await watch;
    const { slots } = await fairShare.state();
    const aProgress = (await request(app.getHttpServer()).get(`/v1/sync-runs/${aRun}`).set(tenantA.auth)).body;
    console.log(
      `B while A syncs: ${duringMs.map((ms) => `${ms} ms`).join(', ')} (A: ${aProgress.status}, ${aProgress.counts?.discovered} files listed, ${aProgress.counts?.added} stored)`,
    );
    const aloneMedianMs = median(aloneMs);
    const duringMedianMs = median(duringMs);
    const ratio = Number((duringMedianMs / aloneMedianMs).toFixed(2));
    const result = {
      aFiles: A_FILES,
      aloneMs,
      duringMs,
      aloneMedianMs,
      duringMedianMs,
      ratio,
      aHeldMax,
      slots,
      target: TARGET,
      met: ratio <= TARGET,
    };
    console.log(
      `tenant B's ${B_FILES} files until searchable: alone ${aloneMedianMs} ms, while A syncs ${A_FILES} slow files ${duringMedianMs} ms: ${ratio}× (target ≤ ${TARGET}×); A held at most ${aHeldMax} of ${slots} sync slots`,
    );
    return result;
  } finally {
    for (const child of children.reverse()) await killChild(child);
    await api?.close();
    await db.stop();
  }
}

/** A new data source of B over a new folder of 20 files: ms from its sync's start until its text is searchable. */
async function roundOfB(
  app: INestApplication,
  admin: AxiosInstance,
  parentId: string,
  tenantB: Caller,
): Promise<number> {
  const folder = (await admin.post('/folders', { parentId, name: `small-${randomUUID()}` })).data.id;
  await admin.post('/bulk-files', {
    parentId: folder,
    count: B_FILES,
    format: 'mixed',
    minSize: 2048,
    maxSize: 20 * 1024,
  });
  const simUrl = String(admin.defaults.baseURL).replace(/\/admin$/, '');
  const id = await dataSource(app, tenantB, simUrl, folder);
  const startedAt = Date.now();
  const runId = await startSync(app, tenantB, id);
  let runEndedMs: number | undefined;
  for (;;) {
    const [runView, source] = await Promise.all([
      request(app.getHttpServer()).get(`/v1/sync-runs/${runId}`).set(tenantB.auth),
      request(app.getHttpServer()).get(`/v1/data-sources/${id}`).set(tenantB.auth),
    ]);
    const ended = !['Queued', 'Running'].includes(runView.body.status);
    if (ended) runEndedMs ??= Date.now() - startedAt;
    if (ended && source.body.pendingExtractions === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const searchableMs = Date.now() - startedAt;
  const [t] = await app.get(DataSource).query(
    `SELECT (extract(epoch from min("ingestedAt")) * 1000)::bigint AS "firstStored",
            (extract(epoch from max("ingestedAt")) * 1000)::bigint AS "lastStored",
            (extract(epoch from max("updatedAt")) * 1000)::bigint AS "lastText"
       FROM connector.documents WHERE "dataSourceId" = $1`,
    [id],
  );
  const after = (at: string) => Number(at) - startedAt;
  console.log(
    `  B's round: files stored ${after(t.firstStored)}–${after(t.lastStored)} ms, run ended ${runEndedMs} ms, last text saved ${after(t.lastText)} ms, searchable ${searchableMs} ms`,
  );
  return searchableMs;
}

async function dataSource(app: INestApplication, caller: Caller, simUrl: string, folderId: string): Promise<string> {
  const http = () => request(app.getHttpServer());
  const credentialId = (
    await http().post('/v1/credentials').set(caller.auth).send({
      name: 'Sim',
      type: 'DocumentSystem',
      instanceUrl: simUrl,
      username: 'alice',
      password: 'alice-password',
      scope: 'Tenant',
    })
  ).body.id;
  const id = (
    await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(caller.auth)
      .send({ name: 'Bench', credentialId, connectionId: randomUUID() })
  ).body.id;
  if (!id) throw new Error('data source not created');
  await http()
    .put(`/v1/data-sources/${id}/selection`)
    .set(caller.auth)
    .send({ include: [folderId], exclude: [] })
    .expect(200);
  return id;
}

async function startSync(app: INestApplication, caller: Caller, dataSourceId: string): Promise<string> {
  return (await request(app.getHttpServer()).post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202))
    .body.syncRunId;
}

/** CPU time (ms) used so far by the machine, this process (API), and each child: simulator, workers (all threads). */
function cpuNow(children: ChildProcess[]): { machine: number; api: number; children: number[] } {
  const ticksToMs = 10; // USER_HZ 100
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/);
  const busy = fields.slice(0, 8).reduce((sum, v, i) => (i === 3 || i === 4 ? sum : sum + Number(v)), 0);
  const ofProcess = (pid: number | undefined) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(stat[11]) + Number(stat[12])) * ticksToMs;
  };
  return { machine: busy * ticksToMs, api: ofProcess(process.pid), children: children.map((c) => ofProcess(c.pid)) };
}

/** Where the machine's CPU went during B's rounds beside A's sync. */
function printCpu(before: ReturnType<typeof cpuNow>, after: ReturnType<typeof cpuNow>): void {
  const [simulator, ...workers] = after.children.map((ms, i) => ms - before.children[i]);
  const machine = after.machine - before.machine;
  const api = after.api - before.api;
  const rest = machine - api - simulator - workers.reduce((a, b) => a + b, 0);
  const parts = {
    workers: workers.join(' + '),
    'simulator (A and B)': simulator,
    'API and bench': api,
    'PostgreSQL, Redis, other': rest,
  };
  console.log(
    `CPU while B's rounds ran beside A (ms, all cores): ${machine} in all; ${Object.entries(parts)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ')}`,
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

if (require.main === module)
  run()
    .then(() => process.exit(0))
    .catch(failBench);
