import { Injectable } from '@nestjs/common';
import type { Job } from 'bull';
import { DatabaseOutages } from '@app/database';
import { FairShare, InjectFairShare, InvalidJobDataError, isLastAttempt, JobHandlers } from '@app/queue';
import { ConnectorEnv } from '../../connector-env';
import { isReauthRequired as isReauth } from '../../document-system/document-system.exception';
import { ExtractionGate, tenantOf } from '../../indexing/extraction-gate';
import { SYNC_QUEUE, SyncJobName, SyncJobs } from '../sync.jobs';
import { FailedSteps } from './failed-steps';
import { IngestFilesStep } from './ingest-files.step';
import { ListFolderStep } from './list-folder.step';
import { isFolderGone } from './vanished-folder';

/**
 * How a run's steps run as jobs: each holds a slot of the sync fair share (SYNC_SLOTS a process, shared
 * between tenants across processes) until it ends for good, runs before any text extraction of this process
 * and waiting out a database outage; a step the document system refused for want of a new authorization (or
 * a folder it no longer has) is not tried again, and one that failed for good is given up through FailedSteps.
 */
@Injectable()
export class StepJobs {
  constructor(
    private readonly env: ConnectorEnv,
    @InjectFairShare(SYNC_QUEUE) private readonly fairShare: FairShare,
    private readonly gate: ExtractionGate,
    private readonly outages: DatabaseOutages,
    private readonly listFolderStep: ListFolderStep,
    private readonly ingestFilesStep: IngestFilesStep,
    private readonly failedSteps: FailedSteps,
  ) {}

  handlers(): Pick<JobHandlers<SyncJobs>, SyncJobName.ListFolder | SyncJobName.IngestFiles> {
    const step = {
      // Either kind may fill every slot of this process: the fair share admits no more than the slots.
      concurrency: this.env.SYNC_SLOTS,
      fairShare: this.fairShare,
      isFinal: isReauth,
      around: <R>(work: () => Promise<R>, job: Job) => this.gate.first(tenantOf(job), () => this.outages.hold(work)),
    };
    return {
      [SyncJobName.ListFolder]: {
        ...step,
        refuse: (problems, job) => this.refused(job, problems),
        isFinal: (error) => isReauth(error) || isFolderGone(error),
        run: (data, job) => this.listFolderStep.listFolder(data, stepKey(job, data.syncRunId)),
        giveUp: (data, error, job) =>
          this.failedSteps.giveUp(
            data.syncRunId,
            stepKey(job, data.syncRunId),
            { kind: SyncJobName.ListFolder },
            error,
          ),
      },
      [SyncJobName.IngestFiles]: {
        ...step,
        refuse: (problems, job) => this.refused(job, problems),
        run: (data, job) => this.ingestFilesStep.ingestFiles(data, stepKey(job, data.syncRunId), isLastAttempt(job)),
        giveUp: (data, error, job) =>
          this.failedSteps.giveUp(
            data.syncRunId,
            stepKey(job, data.syncRunId),
            { kind: SyncJobName.IngestFiles, files: data.files },
            error,
          ),
      },
    };
  }

  /**
   * A step whose data fails the job contract is not tried again (the worker discards it); its task is counted
   * failed so that its run still ends: a listing as a failed listing, a batch's files as failed files.
   */
  private async refused(job: Job, problems: string[]): Promise<never> {
    const syncRunId = runOfRefused(job);
    const files = (job.data as { files?: unknown } | null)?.files;
    if (syncRunId)
      await this.failedSteps.refused(syncRunId, stepKey(job, syncRunId), {
        kind: job.name as SyncJobName.ListFolder | SyncJobName.IngestFiles,
        files: Array.isArray(files) ? files.length : 0,
      });
    await job.discard();
    throw new InvalidJobDataError(SYNC_QUEUE, `Invalid ${job.name} job: ${problems.join(' | ')}`);
  }
}

/** The run a refused job's data names, when its job id says it is that run's step; null otherwise. */
function runOfRefused(job: Job): string | null {
  const syncRunId = (job.data as { syncRunId?: unknown } | null)?.syncRunId;
  return typeof syncRunId === 'string' && String(job.id).startsWith(`${syncRunId}:`) ? syncRunId : null;
}

/** A step's task key: its job id without the run's id in front. */
function stepKey(job: Job, syncRunId: string): string {
  return String(job.id).slice(syncRunId.length + 1);
}
