import { Injectable, Logger } from '@nestjs/common';
import { SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { isReauthRequired } from '../../document-system/document-system.exception';
import { FileToIngest, SyncJobName } from '../sync.jobs';
import { SyncRunsRepository } from '../sync-runs.repository';
import { failedOutcomes } from './file-outcomes';
import { RunFollowUps } from './run-follow-ups';
import { StepGuard } from './step-guard';
import { SyncCompletion } from './sync-completion';
import { savedByThisRun } from './sync-plan';
import { isFolderGone } from './vanished-folder';

export type FailedStep = { kind: SyncJobName.ListFolder } | { kind: SyncJobName.IngestFiles; files: FileToIngest[] };

/** Jobs that failed for good: a step is counted and the run goes on without it; a start, or a lost authorization, ends the run. */
@Injectable()
export class FailedSteps {
  private readonly logger = new Logger(FailedSteps.name);

  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly synced: SyncedDocumentsRepository,
    private readonly guard: StepGuard,
    private readonly followUps: RunFollowUps,
    private readonly completion: SyncCompletion,
  ) {}

  /** The run cannot start: NeedsReauth when the document system asked for a new authorization, else Failed. */
  startFailed(syncRunId: string, error: unknown): Promise<void> {
    return this.completion.abort(
      syncRunId,
      isReauthRequired(error) ? 'NeedsReauth' : 'Failed',
      (error as Error).message,
    );
  }

  async giveUp(syncRunId: string, key: string, step: FailedStep, error: unknown): Promise<void> {
    if (isReauthRequired(error))
      return this.completion.abort(syncRunId, 'NeedsReauth', 'The document system asked to re-authenticate');
    this.logger.warn({ syncRunId, key, error: (error as Error).message }, 'sync step failed for good');
    const unsaved = step.kind === SyncJobName.IngestFiles ? await this.unsaved(syncRunId, step.files) : null;
    // Done by another delivery already: nothing is counted (rolled back). A run no longer Running keeps its counts.
    const settled = await this.guard.once((transaction) =>
      this.guard.commit(transaction, syncRunId, {
        ledger: unsaved
          ? {
              dataSourceId: unsaved.dataSourceId,
              entries: failedOutcomes(unsaved.files.map((file) => ({ file, error }))),
            }
          : undefined,
        completes: key,
        counts: unsaved ? { failed: unsaved.files.length } : { failedListings: isFolderGone(error) ? 0 : 1 },
      }),
    );
    if (settled)
      await this.followUps.after(syncRunId, {
        folderListed: step.kind === SyncJobName.ListFolder,
        pending: settled.pending,
      });
  }

  /** A step whose job data was refused: a listing counts as failed, a batch as its files failed; its run goes on. */
  async refused(
    syncRunId: string,
    key: string,
    step: { kind: SyncJobName.ListFolder | SyncJobName.IngestFiles; files: number },
  ): Promise<void> {
    this.logger.error({ syncRunId, key }, 'sync step refused: its job data fails the job contract');
    const listing = step.kind === SyncJobName.ListFolder;
    const settled = await this.guard.once((transaction) =>
      this.guard.commit(transaction, syncRunId, {
        completes: key,
        counts: listing ? { failedListings: 1 } : { failed: step.files },
      }),
    );
    if (settled) await this.followUps.after(syncRunId, { folderListed: listing, pending: settled.pending });
  }

  /** Files of a batch that an earlier attempt did not save (and count) already. */
  private async unsaved(syncRunId: string, files: FileToIngest[]) {
    const { dataSourceId } = await this.runs.get(syncRunId);
    const known = await this.synced.known(
      dataSourceId,
      files.map((f) => f.fileId),
    );
    return { dataSourceId, files: files.filter((file) => !savedByThisRun(syncRunId, file, known.get(file.fileId))) };
  }
}
