import { Injectable, Logger } from '@nestjs/common';
import { Transactions } from '@app/database';
import { SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { FileLedgerRepository } from '../../file-ledger/file-ledger.repository';
import { isReauthRequired } from '../../document-system/document-system.exception';
import { RunListingRepository } from './run-listing.repository';
import { failedOutcomes } from './file-outcomes';
import { SyncCompletion } from './sync-completion';
import { savedByThisRun } from './sync-plan';
import { isFolderGone } from './vanished-folder';
import { FileToIngest, SyncJobName } from '../sync.jobs';
import { SyncRunsRepository } from '../sync-runs.repository';

export type FailedStep = { kind: SyncJobName.ListFolder } | { kind: SyncJobName.IngestFiles; files: FileToIngest[] };

/** Steps that failed for good: counted, and the run goes on without them (or ends, when the authorization is lost). */
@Injectable()
export class FailedSteps {
  private readonly logger = new Logger(FailedSteps.name);

  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly synced: SyncedDocumentsRepository,
    private readonly transactions: Transactions,
    private readonly completion: SyncCompletion,
    private readonly listing: RunListingRepository,
    private readonly ledger: FileLedgerRepository,
  ) {}

  async giveUp(syncRunId: string, key: string, step: FailedStep, error: unknown): Promise<void> {
    if (isReauthRequired(error))
      return this.completion.abort(syncRunId, 'NeedsReauth', 'The document system asked to re-authenticate');
    this.logger.warn({ syncRunId, key, error: (error as Error).message }, 'sync step failed for good');
    const unsaved = step.kind === SyncJobName.IngestFiles ? await this.unsaved(syncRunId, step.files) : null;
    const deltas = unsaved ? { failed: unsaved.files.length } : { failedListings: isFolderGone(error) ? 0 : 1 };
    const pending = await this.transactions.run(async (transaction) => {
      if (!(await this.runs.completeTask(transaction, syncRunId, key))) return null;
      if (unsaved) {
        const failures = failedOutcomes(unsaved.files.map((file) => ({ file, error })));
        await this.ledger.record(transaction, unsaved.dataSourceId, syncRunId, failures);
      }
      return this.runs.settle(transaction, syncRunId, { ...deltas, pendingTasks: -1 });
    });
    if (pending !== null && step.kind === SyncJobName.ListFolder) await this.listing.stampIfListed(syncRunId);
    if (pending === 0) await this.completion.finishIfDone(syncRunId);
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
