import { Injectable } from '@nestjs/common';
import { SyncCompletion } from './sync-completion';
import { SyncProducer } from './sync.producer';
import { SyncRunsRepository } from '../sync-runs.repository';

const OPEN_TASKS_AT_ONCE = 1000;

/**
 * What a step does after its commit (queue its new tasks' jobs; end the run when nothing is left) is lost
 * when the database goes away or the process dies right after the commit, or when the commit went through
 * but its answer never came. The retry then finds its task done, and does this again: job ids make a job
 * that exists already a no-op, and the run ends only once.
 */
@Injectable()
export class RunFollowUps {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly producer: SyncProducer,
    private readonly completion: SyncCompletion,
  ) {}

  async repeat(syncRunId: string): Promise<void> {
    await this.producer.tasks(syncRunId, await this.runs.openTasks(syncRunId, OPEN_TASKS_AT_ONCE));
    await this.completion.finishIfDone(syncRunId);
  }
}
