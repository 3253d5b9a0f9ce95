import { Injectable } from '@nestjs/common';
import { nextPace } from './run-progress';
import { SyncRunEntity } from './sync-run.entity';
import { SyncRunsRepository } from './sync-runs.repository';

/**
 * Samples a running run's work when it is read (at most every PACE_SAMPLE_MS), so its estimate measures
 * the recent rate. Any process that shows the run may sample it; the first to store a sample wins.
 */
@Injectable()
export class RunPaceSampler {
  constructor(private readonly runs: SyncRunsRepository) {}

  /** The run with its pace brought up to date. */
  async sampled(run: SyncRunEntity, now: Date = new Date()): Promise<SyncRunEntity> {
    const pace = nextPace(run, now);
    if (!pace) return run;
    await this.runs.recordPace(run.id, pace, run.pace?.last.at ?? null);
    return Object.assign(run, { pace });
  }
}
