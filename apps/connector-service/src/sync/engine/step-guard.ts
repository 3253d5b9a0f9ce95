import { Injectable } from '@nestjs/common';
import { Transaction, Transactions } from '@app/database';
import type { DataSourceEntity } from '../../data-sources/data-source.entity';
import type { DocumentSystemSession } from '../../document-system/document-system.adapter';
import { FileLedgerRepository } from '../../file-ledger/file-ledger.repository';
import { LedgerEntry } from '../../file-ledger/ledger-entry';
import { SyncTask } from '../sync.jobs';
import { RunStepsRepository } from '../run-steps.repository';
import type { StepEffects } from '../sync-run-steps';
import { GoneFilesRepository } from './gone-files.repository';
import { RunFollowUps } from './run-follow-ups';
import { RunSessions } from './run-sessions';

/** A duplicate delivery of a step that another worker already completed. */
export class TaskAlreadyDone extends Error {}

/** What a step commits: its files' rows in the run's ledger, the files it found gone, and its effects on the run. */
export interface StepCommit extends StepEffects {
  ledger?: { dataSourceId: string; entries: LedgerEntry[] };
  /** Files the run listed that the document system no longer has: the run has not seen them after all. */
  gone?: string[];
}

/**
 * Keeps each step of a run idempotent: it runs only while its run is Running and its task open, and it
 * commits its effects only in the transaction that marks its task done.
 */
@Injectable()
export class StepGuard {
  constructor(
    private readonly steps: RunStepsRepository,
    private readonly transactions: Transactions,
    private readonly sessions: RunSessions,
    private readonly followUps: RunFollowUps,
    private readonly ledger: FileLedgerRepository,
    private readonly goneFiles: GoneFilesRepository,
  ) {}

  /** The data source and a document-system session for a step that is still to do; null for one that is not. */
  async activeContext(
    syncRunId: string,
    key: string,
  ): Promise<{ source: DataSourceEntity; docs: DocumentSystemSession; listedBytes: number } | null> {
    const state = await this.steps.stepState(syncRunId, key);
    if (state.status === 'Running' && state.done) await this.followUps.repeat(syncRunId);
    if (state.status !== 'Running' || state.done) return null;
    return { ...(await this.sessions.forRun(syncRunId, state.dataSourceId!)), listedBytes: state.listedBytes };
  }

  /** Runs `work` in a transaction that is rolled back when its task turns out to be done already (null then). */
  async once<T>(work: (transaction: Transaction) => Promise<T>): Promise<T | null> {
    try {
      return await this.transactions.run(work);
    } catch (error) {
      if (error instanceof TaskAlreadyDone) return null;
      throw error;
    }
  }

  /** Locks the step's task until the commit, or rolls the step back (`once`) when it is done already. */
  async lockOpenTask(transaction: Transaction, syncRunId: string, key: string): Promise<void> {
    if (!(await this.steps.lockOpenTask(transaction, syncRunId, key))) throw new TaskAlreadyDone();
  }

  /**
   * Commits a step's ledger rows and gone files, then its effects on the run, whose row stays locked until the
   * commit (nothing after this). Rolls the step back (`once`) when another delivery completed its task first;
   * null when the run is no longer Running (its counts stand).
   */
  async commit(
    transaction: Transaction,
    syncRunId: string,
    step: StepCommit,
  ): Promise<{ added: SyncTask[]; pending: number } | null> {
    if (step.ledger) await this.ledger.record(transaction, step.ledger.dataSourceId, syncRunId, step.ledger.entries);
    if (step.gone) await this.goneFiles.unsee(transaction, syncRunId, step.gone);
    const settled = await this.steps.settleStep(transaction, syncRunId, step);
    if (settled === 'taskDone') throw new TaskAlreadyDone();
    return settled === 'notRunning' ? null : settled;
  }
}
