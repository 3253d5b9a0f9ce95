import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { PoolTurns, RESERVED_CONNECTIONS } from '@app/database';
import { eventually, testCaller } from '@app/testing';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';

const POOL = 20;

/**
 * Tenants take turns for the app's database connections (PoolTurns): what one tenant's slow statements
 * hold, another tenant's request does not wait for; and the turns never deadlock a request, nor stay taken
 * after an error.
 */
describe('Turns between tenants for database connections', () => {
  let sut: ConnectorTestApp;
  let turns: PoolTurns;
  const slow = (tenantId: string, seconds: number) =>
    turns.as(tenantId, () => sut.db.query(`SELECT pg_sleep(${seconds})`));

  beforeAll(async () => {
    sut = await startConnectorApp({}, 'api');
    turns = sut.app.get(PoolTurns);
  });
  afterAll(() => sut?.close());

  it("answers another tenant's request at once while one tenant's statements hold the pool", async () => {
    const flood = Array.from({ length: 2 * POOL }, () => slow('tenant-a', 2));
    await eventually(() => turns.load.running === POOL - RESERVED_CONNECTIONS, 5_000);
    const other = await testCaller();

    const started = performance.now();
    await request(sut.app.getHttpServer()).get(`/v1/documents/${randomUUID()}`).set(other.auth).expect(404);
    const took = performance.now() - started;

    await Promise.all(flood);
    expect(took).toBeLessThan(1_000); // before: behind the first 20 of the flood, 2 s or more
  }, 30_000);

  it('lets requests that take a second connection while they hold one all finish', async () => {
    const nested = Array.from({ length: 2 * POOL }, () =>
      turns.as('tenant-a', () =>
        sut.db.transaction(async (manager) => {
          await manager.query('SELECT pg_sleep(0.2)');
          return (await sut.db.query('SELECT 1 AS one'))[0].one;
        }),
      ),
    );
    expect(await Promise.all(nested)).toEqual(Array(2 * POOL).fill(1));
    expect(turns.load).toEqual({ running: 0, waiting: 0 });
  }, 30_000);

  it('gives a turn back when its statement fails, and runs a waiting one once a turn frees', async () => {
    await expect(turns.as('tenant-a', () => sut.db.query('SELECT 1 / 0'))).rejects.toThrow(/division/);
    expect(turns.load).toEqual({ running: 0, waiting: 0 });

    const holding = Array.from({ length: POOL - RESERVED_CONNECTIONS }, () => slow('tenant-a', 1));
    await eventually(() => turns.load.running === POOL - RESERVED_CONNECTIONS, 5_000);
    const waiting = slow('tenant-a', 0);
    await eventually(() => turns.load.waiting === 1, 5_000);

    await expect(waiting).resolves.toEqual([{ pg_sleep: '' }]);
    await Promise.all(holding);
    expect(turns.load).toEqual({ running: 0, waiting: 0 });
  }, 30_000);
});
