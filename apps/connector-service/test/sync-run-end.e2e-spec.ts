import { getQueueToken } from '@nestjs/bull';
import Bull from 'bull';
import { SharedQueue, SyncCompletedEvent } from '@app/contracts/payloads';
import { Transactions } from '@app/database';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SyncCompletion } from '../src/sync/engine/sync-completion';
import { SyncScheduler } from '../src/sync/engine/sync-scheduler';
import { SYNC_QUEUE, SyncJobName, SyncTask } from '../src/sync/sync.jobs';
import { RunStepsRepository } from '../src/sync/run-steps.repository';
import { SyncRunsRepository } from '../src/sync/sync-runs.repository';
import { SyncProducer } from '../src/sync/engine/sync.producer';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceOn } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';

/** A run whose last step committed, but whose end was lost with the database (or the process) right after. */
describe('The end of a sync run', () => {
  let events: Bull.Queue<SyncCompletedEvent>;
  const stack = connectorOnSimulator({ beforeClose: () => events?.close() });

  beforeAll(async () => {
    events = new Bull(SharedQueue.ConnectorEvents, String(stack.sut.env.REDIS_URL), {
      prefix: String(stack.sut.env.QUEUE_PREFIX),
    });
  });

  /** A data source on the simulator's /Structural/Specifications, and a sync of it started. */
  async function startSync() {
    const admin = await testCaller({ roles: ['admin'] });
    const dataSourceId = await dataSource(admin);
    const { syncRunId } = (await stack.http().post(`/v1/data-sources/${dataSourceId}/sync`).set(admin.auth).expect(202))
      .body;
    return { admin, syncRunId };
  }

  const dataSource = (admin: TestCaller) =>
    dataSourceOn(stack.sut.app, stack.sim, stack.connections, admin, SEED_USERS.alice, '/Structural/Specifications');

  /** A run moved to Running by hand, with no task yet: as its start leaves it before creating them. */
  async function runningRun() {
    const admin = await testCaller({ roles: ['admin'] });
    const runs = stack.sut.app.get(SyncRunsRepository);
    const source = await dataSource(admin);
    const transactions = stack.sut.app.get(Transactions);
    const run = (await transactions.run((transaction) => runs.create(transaction, admin.tenantId, source, 'Full')))!;
    await transactions.run((transaction) => runs.begin(transaction, run.id));
    return { admin, runs, run };
  }

  /** The same, started ten minutes ago: long enough for the sweep to start it again. */
  async function runningRunStartedLongAgo() {
    const started = await runningRun();
    await stack.sut.db.query(
      `UPDATE connector.sync_runs SET "startedAt" = now() - interval '10 minutes' WHERE id = $1`,
      [started.run.id],
    );
    return started;
  }

  /** The run as its caller reads it once it has ended. */
  const ended = (admin: TestCaller, syncRunId: string) =>
    eventually(async () => {
      const res = await stack.http().get(`/v1/sync-runs/${syncRunId}`).set(admin.auth);
      return !['Queued', 'Running'].includes(res.body.status) && res.body;
    }, 30000);

  it('is not lost when the database goes away between the last step and the end: the retry ends the run', async () => {
    const completion = stack.sut.app.get(SyncCompletion);
    const finish = completion.finishIfDone.bind(completion);
    let lost = 0;
    // The first time a step would end the run, the database is gone (the step's commit went through).
    completion.finishIfDone = async (syncRunId: string) => {
      if (lost++ === 0) throw new Error('Connection terminated unexpectedly');
      return finish(syncRunId);
    };
    const { admin, syncRunId } = await startSync();
    try {
      const run = await ended(admin, syncRunId);
      expect(run).toMatchObject({ status: 'Succeeded', error: null });
      const event = await eventually(async () => (await events.getJob(`sync-completed:${syncRunId}`))?.data, 10000);
      expect(event).toMatchObject({ type: 'SyncCompleted', syncRunId, status: 'Succeeded' });
    } finally {
      completion.finishIfDone = finish;
    }
  });

  it('ends, on the sweep, a Running run whose tasks are all done (its end lost and no retry left)', async () => {
    const { runs, run } = await runningRun();
    const steps = stack.sut.app.get(RunStepsRepository);
    await stack.sut.app.get(Transactions).run(async (transaction) => {
      const task = {
        key: 'list:root',
        name: SyncJobName.ListFolder,
        data: { syncRunId: run.id, folderId: 'root', path: '/root' },
      } as SyncTask;
      await steps.settleStep(transaction, run.id, { adds: [task] });
      await steps.settleStep(transaction, run.id, { completes: task.key });
    });
    expect((await runs.find(run.id))?.status).toBe('Running');

    await stack.sut.app.get(SyncScheduler).sweep();

    expect((await runs.find(run.id))?.status).toBe('Succeeded');
  });

  it('starts again, on the sweep, a Running run that has had no tasks for minutes (its start job lost after it moved the run)', async () => {
    const { admin, run } = await runningRunStartedLongAgo();

    await stack.sut.app.get(SyncScheduler).sweep();

    const endedRun = await ended(admin, run.id);
    expect(endedRun).toMatchObject({ status: 'Succeeded', error: null });
    expect(endedRun.counts.added).toBeGreaterThan(0);
  });

  it('starts again, on the sweep, a Running run without tasks whose start job failed for good and could not end it', async () => {
    const { admin, run } = await runningRunStartedLongAgo();
    // A start job that failed for good stays in Redis under the run's start job id (here one the worker refuses).
    const queue = stack.sut.app.get<Bull.Queue>(getQueueToken(SYNC_QUEUE));
    const job = await queue.add(
      SyncJobName.StartRun,
      { syncRunId: 'not a run' },
      { jobId: `${run.id}:start`, attempts: 1, removeOnFail: false },
    );
    await eventually(() => job.isFailed(), 10_000);

    await stack.sut.app.get(SyncScheduler).sweep();

    expect(await ended(admin, run.id)).toMatchObject({ status: 'Succeeded', error: null });
  });

  it('leaves a Running run without tasks alone while its start may still be creating them', async () => {
    const { runs, run } = await runningRun();

    await stack.sut.app.get(SyncScheduler).sweep();

    expect((await runs.find(run.id))?.status).toBe('Running');
    expect(await stack.sut.app.get<Bull.Queue>(getQueueToken(SYNC_QUEUE)).getJob(`${run.id}:start`)).toBeNull();
  });

  it.each([
    ['the start', 1],
    ['a listed page', 2],
  ])('queues again the new tasks of %s that committed but lost their jobs', async (_, lostCall) => {
    const producer = stack.sut.app.get(SyncProducer);
    const queue = producer.tasks.bind(producer);
    let calls = 0;
    // The run's start queues its root folder's listing, and the root's page its file batches.
    producer.tasks = async (syncRunId: string, tasks: SyncTask[]) => {
      if (++calls === lostCall) throw new Error('Connection is closed.');
      return queue(syncRunId, tasks);
    };
    const { admin, syncRunId } = await startSync();
    const run = await eventually(async () => {
      const res = await stack.http().get(`/v1/sync-runs/${syncRunId}`).set(admin.auth);
      return res.body.status === 'Succeeded' && res.body;
    }, 30000);
    expect(calls).toBeGreaterThan(lostCall);
    producer.tasks = queue;
    expect(run.counts).toMatchObject({ added: expect.any(Number), failed: 0 });
    expect(run.counts.added).toBeGreaterThan(0);
  });
});
