import type { Queue } from 'bull';
import { getQueueToken } from '@nestjs/bull';
import { after, eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ListFolderStep } from '../src/sync/engine/list-folder.step';
import { StartRunStep } from '../src/sync/engine/start-run.step';
import { STEP_STALLED_OUT } from '../src/sync/engine/sync.processor';
import { SYNC_QUEUE, SyncJobName } from '../src/sync/sync.jobs';
import { dataSourceOn } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { waitForRun } from './support/sync-helpers';

/**
 * What a worker killed while running a step leaves, again and again: the job active, its lock gone. Bull's stalled
 * check hands it back to waiting until it has stalled more than MAX_STALLED_COUNT (2) times, then fails it
 * without our handler. Returns how often the job was taken.
 */
async function stallUntilFailed(queue: Queue, jobId: string): Promise<number> {
  let taken = 0;
  for (;;) {
    const job = await queue.getJob(jobId);
    if (!job || (await job.isFailed())) return taken;
    if ((await queue.client.lrem(queue.toKey('wait'), 0, jobId)) > 0) {
      await queue.client.lpush(queue.toKey('active'), jobId);
      taken++;
    }
    await after(100);
  }
}

describe('A sync step that stops every worker that runs it', () => {
  const stack = connectorOnSimulator();
  let caller: TestCaller;
  let queue: Queue;
  const { http } = stack;

  beforeAll(async () => {
    caller = await testCaller({ roles: ['admin'] });
    queue = stack.sut.app.get<Queue>(getQueueToken(SYNC_QUEUE));
  });

  /** The waiting job of `name` of a run (its first, when it has several). */
  const waiting = (syncRunId: string, name: SyncJobName) =>
    eventually(async () =>
      (await queue.getWaiting()).find((job) => job.name === name && job.data.syncRunId === syncRunId),
    );

  /**
   * Starts a sync of `folder` with this process's workers held, lets `before` run what the run needs to reach the
   * step, then stalls the step's job until Bull fails it; returns the run once it has ended.
   */
  async function stallStep(folder: string, step: SyncJobName, before: (syncRunId: string) => Promise<void>) {
    const dataSourceId = await dataSourceOn(
      stack.sut.app,
      stack.sim,
      stack.connections,
      caller,
      SEED_USERS.alice,
      folder,
    );
    // Held with its blocking reads cut short: a read already waiting would take the job when it is back.
    await queue.pause(true, true);
    let syncRunId: string;
    try {
      syncRunId = (await http().post(`/v1/data-sources/${dataSourceId}/sync`).set(caller.auth).expect(202)).body
        .syncRunId;
      await stack.sut.app.get(StartRunStep).start(syncRunId); // what its start job does: the run's first listing is queued
      await before(syncRunId);
      expect(await stallUntilFailed(queue, String((await waiting(syncRunId, step)).id))).toBe(3);
    } finally {
      await queue.resume(true);
    }
    return waitForRun(stack.sut.app, caller, syncRunId, 15_000);
  }

  it('counts a listing failed, and its run ends, rather than staying Running while the sweep adds it again', async () => {
    const run = await stallStep('/Structural', SyncJobName.ListFolder, async () => undefined);
    expect({ status: run.status, error: run.error }).toEqual({
      status: 'Failed',
      error: '1 folder listing(s) failed; deletions were not applied',
    });
  }, 60_000);

  it("fails a batch's files with the reason, and the run ends", async () => {
    const run = await stallStep('/Structural/Calculations', SyncJobName.IngestFiles, async (syncRunId) => {
      const listing = await waiting(syncRunId, SyncJobName.ListFolder);
      // What the listing's job does: the folder's file is queued in a batch.
      await stack.sut.app.get(ListFolderStep).listFolder(listing.data, String(listing.id).slice(syncRunId.length + 1));
    });
    expect({ status: run.status, counts: run.counts }).toMatchObject({
      status: 'Failed', // its only file failed
      counts: { discovered: 1, added: 0, failed: 1 },
    });
    const files = (await http().get(`/v1/sync-runs/${run.id}/files`).set(caller.auth).expect(200)).body;
    expect(files.items).toEqual([
      expect.objectContaining({ name: 'beam-schedule.csv', outcome: 'Failed', reason: STEP_STALLED_OUT }),
    ]);
  }, 60_000);
});
