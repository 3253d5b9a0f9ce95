import request from 'supertest';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { testCaller, TestCaller } from '@app/testing';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import { hostileConnections, hostileDataSource } from '../support/hostile-connections';
import { HeavyDocumentSystem, startHeavyDocumentSystem } from '../support/heavy-document-system';
import { HostileDocumentSystem } from './hostile-document-system';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * CONTRACT.md, fair share: no document-system answer is parsed on the API's event loop in one piece. While
 * tenant A's folder picker reads 16 MiB pages in a loop, tenant B's calls and the health probe answer at once.
 */
describe("One tenant's picker against a hostile document system", () => {
  let hostileA: HeavyDocumentSystem;
  let plainB: HostileDocumentSystem;
  let sut: ConnectorTestApp;
  let tenantA: TestCaller;
  let tenantB: TestCaller;
  const connections = hostileConnections();
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    hostileA = await startHeavyDocumentSystem();
    plainB = await new HostileDocumentSystem([{ id: 'b', name: 'Plain', files: [] }]).start();
    sut = await startConnectorApp({ overrides: [[ConnectionTokens, connections]] });
    tenantA = await testCaller({ roles: ['admin'] });
    tenantB = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    await sut.close();
    await hostileA.stop();
    await plainB.stop();
  });

  const dataSource = (caller: TestCaller, url: string, folderId: string) =>
    hostileDataSource(sut.app, connections, caller, url, [folderId]);

  /**
   * B's calls one after another for `ms`, and on until `enough` (at most `maxMs`): their p95s, and the event
   * loop's delay p99 meanwhile.
   */
  async function measure(bId: string, ms: number, enough = () => true, maxMs = ms) {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const latencies: Record<string, number[]> = { dataSource: [], health: [], picker: [] };
    const timed = async (name: string, call: () => Promise<unknown>) => {
      const callStarted = performance.now();
      await call();
      latencies[name].push(performance.now() - callStarted);
    };
    delay.enable();
    const started = Date.now();
    const more = () => Date.now() - started < ms || (!enough() && Date.now() - started < maxMs);
    while (more()) {
      await timed('dataSource', () => http().get(`/v1/data-sources/${bId}`).set(tenantB.auth).expect(200));
      await timed('health', () => http().get('/health/live').expect(200));
      await timed('picker', () => http().get(`/v1/data-sources/${bId}/folders`).set(tenantB.auth).expect(200));
      await sleep(20);
    }
    delay.disable();
    return {
      p95: Object.fromEntries(Object.entries(latencies).map(([k, v]) => [k, Math.round(percentile(v, 95))])),
      loopDelayP99Ms: Math.round(delay.percentile(99) / 1e6),
    };
  }

  it("answers tenant B and /health promptly, and keeps the event loop's delay low, while A's picker reads 16 MiB pages", async () => {
    const aId = await dataSource(tenantA, hostileA.url, 'h1');
    const bId = await dataSource(tenantB, plainB.url, 'b');
    // Warm up: A's pages are read once (the parser processes start), B's picker once. As in the loop below,
    // A may get 502 on a machine busy with other suites (its pages late past the picker's bound).
    const warmUp = await http().get(`/v1/data-sources/${aId}/folders`).set(tenantA.auth);
    expect([200, 502]).toContain(warmUp.status);
    await http().get(`/v1/data-sources/${bId}/folders`).set(tenantB.auth).expect(200);

    // B's calls alone first: on a machine busy with other work, its figures say what the machine itself costs.
    const alone = await measure(bId, 5_000);
    const served = hostileA.listings();
    let loading = true;
    const aAnswers: Record<number, number> = { 200: 0, 502: 0 };
    const pickerLoop = async () => {
      while (loading) {
        const res = await http().get(`/v1/data-sources/${aId}/folders`).set(tenantA.auth);
        // Its pages, or 502 when they did not come within the picker's bound (10 s) on a busy machine.
        expect([200, 502]).toContain(res.status);
        aAnswers[res.status]++;
      }
    };
    const loops = [pickerLoop(), pickerLoop()];
    await sleep(500);
    // On a machine busy with other suites, A's low-priority document system may send a page in 10 s, not 1:
    // B is measured until A has read 4 pages meanwhile (at least 8 s, at most 40 s).
    const loaded = await measure(bId, 8_000, () => hostileA.listings() - served >= 4, 40_000);
    loading = false;
    await Promise.all(loops);

    const heavyAnswersRead = hostileA.listings() - served;
    console.log(JSON.stringify({ alone, loaded, aAnswers, heavyAnswersRead }));
    expect(heavyAnswersRead).toBeGreaterThanOrEqual(4); // A really read 16 MiB pages meanwhile
    // The targets (p95 < 100 ms, loop delay p99 < 50 ms); on a machine so busy that B alone comes near them
    // (shared, two cores), 8 times what B alone saw. Parsing on the event loop (before) cost B 20 to 60 times
    // what it saw alone: p95s of 1 to 4 s, a loop delay p99 of 2.2 s (docs/benchmarks.md). A full run beside
    // other suites once saw 4.6 times (picker p95 490 ms against 106 alone) with the parsing off the loop.
    const within = (target: number, aloneFigure: number) => Math.max(target, 8 * aloneFigure);
    for (const [name, p95] of Object.entries(loaded.p95)) expect(p95).toBeLessThan(within(100, alone.p95[name]));
    expect(loaded.loopDelayP99Ms).toBeLessThan(within(50, alone.loopDelayP99Ms));
  }, 120_000);
});
