import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DomainException, isInfrastructureError } from '@app/errors';
import type { Transaction } from '@app/database';
import { RepeatingJob } from '@app/queue';
import { ConnectorEnv } from '../../connector-env';
import { LostWorkRepository } from './lost-work.repository';
import { SyncCompletion } from './sync-completion';
import { SyncProducer } from './sync.producer';
import { SyncScheduleRepository } from './sync-schedule.repository';
import { SyncStarter } from './sync-starter';

const STRANDED_AFTER_MS = 2 * 60_000;

/**
 * The sweep, every SWEEP_MS (a minute) in worker processes: starts scheduled syncs that are due, starts again runs whose
 * start was lost before they had tasks, re-adds jobs of tasks a crashed process never queued, ends runs
 * whose end was lost, and queues the settling of data sources left selecting nothing with a run or documents.
 * It does no tenant's long work itself: a settling is a job of its tenant's under the sync fair share, so one
 * tenant's slow or blocked removal holds neither the sweep nor another tenant's work.
 */
@Injectable()
export class SyncScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SyncScheduler.name);
  private readonly repeating: RepeatingJob;

  constructor(
    private readonly schedules: SyncScheduleRepository,
    private readonly lostWork: LostWorkRepository,
    private readonly producer: SyncProducer,
    private readonly starter: SyncStarter,
    private readonly completion: SyncCompletion,
    env: ConnectorEnv,
  ) {
    this.repeating = new RepeatingJob('sync sweep', () => producer.scheduleSweep(env.SWEEP_MS), env.SWEEP_MS);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.repeating.start();
  }

  onModuleDestroy(): void {
    this.repeating.stop();
  }

  async sweep(): Promise<void> {
    await this.startDueSyncs();
    await this.restartTaskless();
    await this.requeueStranded();
    await this.endUnended();
    await this.settleUnselected();
  }

  /**
   * Each due schedule moves to its next time in the transaction that creates its run, or after a refused start: an
   * outage before leaves it due, and the next sweep starts it. A sweep that comes to a schedule another sweep moved
   * meanwhile (sweeps overlap when one outlasts SWEEP_MS) starts nothing.
   */
  async startDueSyncs(): Promise<void> {
    for (const id of await this.schedules.due()) {
      const claim = (transaction: Transaction) => this.schedules.advance(id, transaction);
      const started = await this.starter.startFor(id, claim).catch((error: unknown) => this.notStarted(id, error));
      // A run started moved its schedule with it; a refused start (or one another sweep took) moves it here.
      if (!started) await this.schedules.advance(id);
    }
  }

  /** A refused start waits for the schedule's next time; an outage fails the sweep, the schedule still due. */
  private notStarted(dataSourceId: string, error: unknown): void {
    if (isInfrastructureError(error)) throw error;
    if (error instanceof DomainException)
      return this.logger.log({ dataSourceId, code: error.code }, 'scheduled sync skipped');
    this.logger.error({ dataSourceId, error: (error as Error).message }, 'scheduled sync failed to start');
  }

  private async endUnended(): Promise<void> {
    for (const id of await this.lostWork.unendedRuns()) await this.completion.finishIfDone(id);
  }

  /** A job per data source (a no-op while one waits or runs): the settling never runs in the sweep itself. */
  private async settleUnselected(): Promise<void> {
    for (const { id, tenantId } of await this.lostWork.unsettledUnselected())
      await this.producer.settleUnselected(id, tenantId);
  }

  /** Its start job again (a no-op while that job waits or runs): it starts a Queued run, or goes on from Running. */
  private async restartTaskless(): Promise<void> {
    for (const id of await this.lostWork.taskless(new Date(Date.now() - STRANDED_AFTER_MS)))
      await this.producer.restartRun(id);
  }

  private async requeueStranded(): Promise<void> {
    const stranded = await this.lostWork.strandedTasks(new Date(Date.now() - STRANDED_AFTER_MS));
    const byRun = new Map<string, typeof stranded>();
    for (const task of stranded) byRun.set(task.syncRunId, [...(byRun.get(task.syncRunId) ?? []), task]);
    for (const [runId, tasks] of byRun) await this.producer.tasks(runId, tasks);
  }
}
