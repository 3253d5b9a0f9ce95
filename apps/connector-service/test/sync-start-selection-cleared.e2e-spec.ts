import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';

describe('A sync started while its selection is being cleared', () => {
  const stack = connectorOnSimulator();
  let admin: TestCaller;
  let clearing: Client;
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    clearing = new Client({ connectionString: String(stack.sut.env.DATABASE_URL) });
    await clearing.connect();
  });

  afterAll(() => clearing.end());

  /** Backends of this app's database waiting for a lock (the start, queued behind the clearing transaction). */
  const waiting = async () =>
    (
      await clearing.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      )
    ).rows[0].count;

  it('starts no run once the clearing commits: 409 NOTHING_SELECTED, and the data source has no run', async () => {
    const id = await dataSourceSelecting(stack.sut.app, stack.sim, admin, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(admin),
      include: [await stack.sim.folderId('/Structural')],
      projectId: randomUUID(),
    });
    // The selection's save, as a PUT makes it: the data source's row changed, not yet committed.
    await clearing.query('BEGIN');
    await clearing.query(`UPDATE connector.data_sources SET selection = '[]'::jsonb WHERE id = $1`, [id]);
    let answered = false;
    const start = http()
      .post(`/v1/data-sources/${id}/sync`)
      .set(admin.auth)
      .then((response) => {
        answered = true;
        return response;
      });
    try {
      await eventually(async () => answered || (await waiting()) > 0);
    } finally {
      await clearing.query('COMMIT');
    }

    const response = await start;
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 409, code: 'NOTHING_SELECTED' });
    const runs = await http().get(`/v1/data-sources/${id}/sync-runs`).set(admin.auth).expect(200);
    expect(runs.body).toEqual([]);
  });
});
