import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { eventually, testCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { INDEXING_QUEUE, IndexingJobName } from '../src/indexing/indexing.jobs';
import { LostWorkRepository } from '../src/sync/engine/lost-work.repository';
import { SyncProducer } from '../src/sync/engine/sync.producer';
import { SYNC_QUEUE, SyncJobName } from '../src/sync/sync.jobs';
import { dataSourceOn } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';

/**
 * The sweeps run as repeating jobs, every minute: their jobs, not only the code they call, must run. A job
 * of the same kind added now stands for the next one.
 */
describe('The sweep jobs', () => {
  const stack = connectorOnSimulator();

  /** Adds a sweep job now and returns its state once it has ended, with why it failed if it did. */
  async function sweepOn(queueName: string, name: string): Promise<{ state: string; failedReason?: string }> {
    const queue = stack.sut.app.get<Queue>(getQueueToken(queueName));
    const job = await queue.add(name, {}, { jobId: `test-sweep-${queueName}`, removeOnComplete: false });
    return eventually(async () => {
      const current = (await queue.getJob(job.id))!;
      const state = await current.getState();
      return state === 'completed' || state === 'failed' ? { state, failedReason: current.failedReason } : undefined;
    }, 15_000);
  }

  it("start a data source's scheduled sync once it is due", async () => {
    const admin = await testCaller({ roles: ['admin'] });
    const dataSourceId = await dataSourceOn(
      stack.sut.app,
      stack.sim,
      stack.connections,
      admin,
      SEED_USERS.alice,
      '/Structural',
    );
    await stack.sut.db.query(
      `UPDATE connector.data_sources SET "scheduleIntervalMinutes" = 60, "nextScheduledSyncAt" = now() WHERE id = $1`,
      [dataSourceId],
    );

    expect(await sweepOn(SYNC_QUEUE, SyncJobName.Sweep)).toEqual({ state: 'completed', failedReason: undefined });
    const [{ runs }] = await stack.sut.db.query(
      `SELECT count(*)::int AS runs FROM connector.sync_runs WHERE "dataSourceId" = $1`,
      [dataSourceId],
    );
    expect(runs).toBe(1);
  });

  it("re-add a run's lost task though another tenant's run has more than a sweep's worth of older tasks waiting", async () => {
    /** A Running run of a tenant of its own whose `tasks` pending tasks were created `agoSeconds` ago. */
    const runWith = async (tasks: number, agoSeconds: number) => {
      const admin = await testCaller({ roles: ['admin'] });
      const dataSourceId = await dataSourceOn(
        stack.sut.app,
        stack.sim,
        stack.connections,
        admin,
        SEED_USERS.alice,
        '/Structural',
      );
      const [{ id }] = await stack.sut.db.query(
        `INSERT INTO connector.sync_runs ("tenantId", "dataSourceId", mode, status, "startedAt", "pendingTasks")
         VALUES ($1, $2, 'Full', 'Running', now() - interval '10 minutes', $3) RETURNING id`,
        [admin.tenantId, dataSourceId, tasks],
      );
      await stack.sut.db.query(
        `INSERT INTO connector.sync_tasks ("syncRunId", key, "jobName", payload, "createdAt")
         SELECT $1::uuid, 'files:' || i, $2, jsonb_build_object('syncRunId', $1::text, 'files', '[]'::jsonb),
           now() - make_interval(secs => $3) + i * interval '1 ms'
         FROM generate_series(1, $4::int) i`,
        [id, SyncJobName.IngestFiles, agoSeconds, tasks],
      );
      return id as string;
    };
    const busy = await runWith(1001, 300);
    const lost = await runWith(1, 180);
    try {
      const stranded = await stack.sut.app.get(LostWorkRepository).strandedTasks(new Date(Date.now() - 120_000));
      expect(stranded.filter((task) => task.syncRunId === lost)).toHaveLength(1);
    } finally {
      await stack.sut.db.query('DELETE FROM connector.sync_runs WHERE id = ANY($1)', [[busy, lost]]);
    }
  });

  it('count a step whose job data the worker refuses as failed, so its run still ends', async () => {
    const admin = await testCaller({ roles: ['admin'] });
    const dataSourceId = await dataSourceOn(
      stack.sut.app,
      stack.sim,
      stack.connections,
      admin,
      SEED_USERS.alice,
      '/Structural',
    );
    const [{ id }] = await stack.sut.db.query(
      `INSERT INTO connector.sync_runs ("tenantId", "dataSourceId", mode, status, "startedAt", "pendingTasks")
       VALUES ($1, $2, 'Full', 'Running', now(), 2) RETURNING id`,
      [admin.tenantId, dataSourceId],
    );
    // A listing and a batch whose data no longer passes the job contract (a bug of ours, or an old job's shape).
    const tasks = [
      { key: 'folder:bad', name: SyncJobName.ListFolder, data: { syncRunId: id, folderId: 7, path: '/x' } },
      { key: 'files:bad', name: SyncJobName.IngestFiles, data: { syncRunId: id, files: [{ fileId: 1 }, {}] } },
    ];
    await stack.sut.db.query(
      `INSERT INTO connector.sync_tasks ("syncRunId", key, "jobName", payload)
       SELECT $1, t.key, t.name, t.data FROM jsonb_to_recordset($2::jsonb) AS t(key text, name text, data jsonb)`,
      [id, JSON.stringify(tasks)],
    );
    await stack.sut.app.get(SyncProducer).tasks(id, tasks as never);
    const run = await eventually(async () => {
      const [row] = await stack.sut.db.query(
        `SELECT status, failed, "failedListings" FROM connector.sync_runs WHERE id = $1`,
        [id],
      );
      return row.status === 'Running' ? undefined : row;
    }, 15_000);
    expect(run).toEqual({ status: 'Failed', failed: 2, failedListings: 1 });
  });

  it('look for documents whose extraction was lost', async () => {
    expect(await sweepOn(INDEXING_QUEUE, IndexingJobName.Sweep)).toEqual({
      state: 'completed',
      failedReason: undefined,
    });
  });
});
