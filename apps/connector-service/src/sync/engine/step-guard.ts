import { Injectable } from '@nestjs/common';
import { Transaction, Transactions } from '@app/database';
import type { DataSourceEntity } from '../../data-sources/data-source.entity';
import type { DocumentSystemSession } from '../../document-system/document-system.adapter';
import { RunFollowUps } from './run-follow-ups';
import { RunSessions } from './run-sessions';
import { SyncRunsRepository } from '../sync-runs.repository';

/** A duplicate delivery of a step that another worker already completed. */
export class TaskAlreadyDone extends Error {}

/**
 * Keeps each step of a run idempotent: it runs only while its run is Running and its task open, and it
 * commits its effects only in the transaction that marks its task done.
 */
@Injectable()
export class StepGuard {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly transactions: Transactions,
    private readonly sessions: RunSessions,
    private readonly followUps: RunFollowUps,
  ) {}

  /** The data source and a document-system session for a step that is still to do; null for one that is not. */
  async activeContext(
    syncRunId: string,
    key: string,
  ): Promise<{ source: DataSourceEntity; docs: DocumentSystemSession } | null> {
    const state = await this.runs.stepState(syncRunId, key);
    if (state.status === 'Running' && state.done) await this.followUps.repeat(syncRunId);
    if (state.status !== 'Running' || state.done) return null;
    return this.sessions.forRun(syncRunId);
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

  /** Marks the task done, or rolls the step back (`once`) when another delivery did so first. */
  async completeOrRollBack(transaction: Transaction, syncRunId: string, key: string): Promise<void> {
    if (!(await this.runs.completeTask(transaction, syncRunId, key))) throw new TaskAlreadyDone();
  }
}
