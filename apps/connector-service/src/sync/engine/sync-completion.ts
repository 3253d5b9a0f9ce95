import { Injectable } from '@nestjs/common';
import { EndedSyncRunStatus } from '@app/contracts/views';
import { Transaction, Transactions } from '@app/database';
import { ContentsClearingRepository } from '../../data-sources/contents-clearing.repository';
import { DataSourcesRepository } from '../../data-sources/data-sources.repository';
import { IngestionStatus } from '../../data-sources/ingestion-status';
import { SyncedDocumentsRepository } from '../../documents/synced-documents.repository';
import { UnreferencedBlobs } from '../../documents/unreferenced-blobs';
import { outcomeOf, SyncRunStatus } from '../sync-run-state';
import { RunStepsRepository } from '../run-steps.repository';
import { SyncRunsRepository } from '../sync-runs.repository';
import type { EndedRunStatus } from '../sync-run-steps';
import { DeletionGuard, GuardedDeletions } from './deletion-guard';
import { EndedRun, EndedRunEvents } from './ended-run-events';
import { limitError } from './run-limits';

const INGESTION_AFTER: Record<Exclude<EndedSyncRunStatus, 'Cancelled'>, IngestionStatus> = {
  Succeeded: 'Synced',
  PartiallySucceeded: 'PartiallySynced',
  Failed: 'Failed',
};

/**
 * How runs end: when the last task is done (deleted files are dropped then, only when every folder
 * was listed, and unless the deletion guard holds them), when the authorization is lost, or when a
 * user cancels. Exactly one caller wins each ending; its SyncCompleted commits in the outbox with the
 * ending, and is published after it.
 */
@Injectable()
export class SyncCompletion {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly steps: RunStepsRepository,
    private readonly transactions: Transactions,
    private readonly sources: DataSourcesRepository,
    private readonly clearing: ContentsClearingRepository,
    private readonly synced: SyncedDocumentsRepository,
    private readonly guard: DeletionGuard,
    private readonly events: EndedRunEvents,
    private readonly blobGarbage: UnreferencedBlobs,
  ) {}

  async finishIfDone(syncRunId: string): Promise<void> {
    if ((await this.steps.pendingTasks(syncRunId)) > 0) return;
    // Every listing is done: stamped here too should its own stamp have been lost with its process.
    await this.steps.stampIfListed(syncRunId);
    const ended = await this.transactions.run(async (transaction) => {
      const run = await this.runs.lock(transaction, syncRunId);
      if (!run || run.status !== 'Running' || run.pendingTasks > 0) return null;
      // A run that did not see everything (a listing failed, or it stopped at a limit) deletes nothing.
      const sawAll = run.failedListings === 0 && !run.limitReached;
      const guarded = sawAll ? await this.guard.dropUnseen(transaction, run.dataSourceId, syncRunId) : UNGUARDED;
      const dropped = guarded.dropped;
      const outcome = withHeld(
        outcomeOf({ ...run, deleted: run.deleted + dropped.length }, run.failedListings, run.limitReached !== null),
        guarded.held,
      ) as keyof typeof INGESTION_AFTER;
      const error = run.limitReached
        ? limitError(run.limitReached, run.listingStopped)
        : run.failedListings
          ? `${run.failedListings} folder listing(s) failed; deletions were not applied`
          : guarded.reason;
      const end = await this.end(transaction, syncRunId, outcome, { error, deleted: dropped.length }, (dataSourceId) =>
        this.sources.moveStatus(dataSourceId, INGESTION_AFTER[outcome], transaction),
      );
      return { dropped, end };
    });
    if (!ended) return;
    await this.events.announce(ended.end);
    await this.blobGarbage.collect(ended.dropped.flatMap((d) => (d.contentSha256 ? [d.contentSha256] : [])));
  }

  /** Ends a run at once because its authorization is lost (or another failure of the whole run). */
  async abort(syncRunId: string, dataSourceStatus: IngestionStatus, error: string): Promise<void> {
    const ended = await this.transactions.run((transaction) =>
      this.end(transaction, syncRunId, 'Failed', { error }, (dataSourceId) =>
        this.sources.moveStatus(dataSourceId, dataSourceStatus, transaction),
      ),
    );
    await this.events.announce(ended);
  }

  /**
   * Ends a run a user cancelled; its data source returns to where it was before the run (CONTRACT.md), unless it
   * left Syncing meanwhile (NotConfigured then).
   */
  async cancel(syncRunId: string): Promise<void> {
    const ended = await this.transactions.run((transaction) =>
      this.end(transaction, syncRunId, 'Cancelled', { error: 'Cancelled by a user' }, (dataSourceId) =>
        this.sources.backFromCancelledRun(dataSourceId, transaction),
      ),
    );
    await this.events.announce(ended);
  }

  /**
   * Cancels a run of a data source whose contents are to go (it selects nothing any more, or it moved to another
   * login: `error` says so); leaves one whose contents are to stay by the time the run is locked (it selects something
   * again, and nothing of a former login is left): that is a new selection's run.
   */
  async cancelUnselected(syncRunId: string, error: string): Promise<void> {
    const ended = await this.transactions
      .run((transaction) =>
        this.end(transaction, syncRunId, 'Cancelled', { error }, async (dataSourceId) => {
          if (!(await this.clearing.lockContentsToClear(transaction, dataSourceId))) throw new SelectedAgain();
          await this.sources.backFromCancelledRun(dataSourceId, transaction);
        }),
      )
      .catch((reason: unknown) => {
        if (reason instanceof SelectedAgain) return null;
        throw reason;
      });
    await this.events.announce(ended);
  }

  /** Moves the run to its end, forgets what it saw, moves its data source and records its events; null when another ending won. */
  private async end(
    transaction: Transaction,
    syncRunId: string,
    to: EndedRunStatus,
    ending: { error: string | null; deleted?: number },
    moveSource: (dataSourceId: string) => Promise<unknown>,
  ): Promise<EndedRun | null> {
    const run = await this.runs.end(transaction, syncRunId, to, ending);
    if (!run) return null;
    await this.synced.forgetSightings(transaction, syncRunId);
    await moveSource(run.dataSourceId);
    return this.events.record(transaction, run);
  }
}

/** Rolls back a cancel whose data source selects something again. */
class SelectedAgain extends Error {}

const UNGUARDED: GuardedDeletions = { dropped: [], held: 0, reason: null };

/** A run that holds deletions has not done all it should: it cannot have Succeeded. */
function withHeld(outcome: SyncRunStatus, held: number): SyncRunStatus {
  return held > 0 && outcome === 'Succeeded' ? 'PartiallySucceeded' : outcome;
}
