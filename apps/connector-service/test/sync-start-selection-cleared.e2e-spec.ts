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

  const dataSource = async () =>
    dataSourceSelecting(stack.sut.app, stack.sim, admin, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(admin),
      include: [await stack.sim.folderId('/Structural')],
      projectId: randomUUID(),
    });

  it('starts no run once the clearing commits: 409 NOTHING_SELECTED, and the data source has no run', async () => {
    const id = await dataSource();
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

  it('starts a run while the run before it is being cancelled: the start waits for the cancel, neither fails', async () => {
    const id = await dataSource();
    // A run under way (by hand: no job moves it meanwhile), its data source Syncing.
    const [{ id: runId }] = (
      await clearing.query<{ id: string }>(
        `INSERT INTO connector.sync_runs ("tenantId", "dataSourceId", mode, status, "startedAt")
         VALUES ($1, $2, 'Full', 'Running', now()) RETURNING id`,
        [admin.tenantId, id],
      )
    ).rows;
    await clearing.query(`UPDATE connector.data_sources SET "ingestionStatus" = 'Syncing' WHERE id = $1`, [id]);
    // The cancel's transaction holds the run's row and waits between the run's end and its data source's move.
    await clearing.query('BEGIN');
    await clearing.query('LOCK TABLE connector.sync_sightings IN ACCESS EXCLUSIVE MODE');
    let cancel: Promise<{ status: number }>, start: Promise<{ status: number; body: { code?: string } }>;
    try {
      cancel = http()
        .post(`/v1/sync-runs/${runId}/cancel`)
        .set(admin.auth)
        .then((r) => r);
      await eventually(async () => (await waiting()) >= 1);
      start = http()
        .post(`/v1/data-sources/${id}/sync`)
        .set(admin.auth)
        .then((r) => r);
      await eventually(async () => (await waiting()) >= 2);
    } finally {
      await clearing.query('ROLLBACK');
    }
    expect({ cancel: (await cancel).status, start: (await start).status }).toEqual({ cancel: 200, start: 202 });
  });
});
