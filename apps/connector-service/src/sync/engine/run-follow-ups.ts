import { Injectable } from '@nestjs/common';
import { SyncTask } from '../sync.jobs';
import { RunStepsRepository } from '../run-steps.repository';
import { SyncCompletion } from './sync-completion';
import { SyncProducer } from './sync.producer';

const OPEN_TASKS_AT_ONCE = 1000;

/**
 * What a step does after its commit: queue its new tasks' jobs, stamp the run's listing once a folder is
 * listed, end the run when nothing is left. This is lost when the database goes away or the process dies
 * right after the commit, or when the commit went through but its answer never came. The retry then finds
 * its task done, and does it again (`repeat`): job ids make a job that exists already a no-op, and the run
 * ends only once.
 */
@Injectable()
export class RunFollowUps {
  constructor(
    private readonly steps: RunStepsRepository,
    private readonly producer: SyncProducer,
    private readonly completion: SyncCompletion,
  ) {}

  async after(syncRunId: string, step: { jobs?: SyncTask[]; folderListed?: boolean; pending: number }): Promise<void> {
    if (step.jobs?.length) await this.producer.tasks(syncRunId, step.jobs);
    // After the jobs: a failure here leaves the stamp to the run's end, not the new tasks to the sweep.
    if (step.folderListed) await this.steps.stampIfListed(syncRunId);
    if (step.pending === 0) await this.completion.finishIfDone(syncRunId);
  }

  async repeat(syncRunId: string): Promise<void> {
    await this.producer.tasks(syncRunId, await this.steps.openTasks(syncRunId, OPEN_TASKS_AT_ONCE));
    await this.completion.finishIfDone(syncRunId);
  }
}
