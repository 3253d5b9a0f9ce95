import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { DEFAULT_JOB_NAME, FairShare, InjectFairShare, JobHandlers, onStalledOut, QueueProcessor } from '@app/queue';
import { ApprovalEnv } from '../approval-env';
import { CallbacksFirstGate } from '../callbacks/callbacks-first.gate';
import { AttemptsInFlight } from './attempts-in-flight';
import { DeliveryAttemptJob, DELIVERY_JOBS, DELIVERY_QUEUE, DeliveryJobs, deliverySlots } from './delivery.jobs';
import { DeliveryService } from './delivery.service';

/** How soon a job handed back at shutdown is due again: at once, for whichever worker takes it. */
const HAND_BACK_MS = 1;

/** Thin: validate the job, delegate. Registered only in processes that run workers, whose slots join the fair share. */
@Injectable()
export class DeliveryProcessor extends QueueProcessor<DeliveryJobs> implements OnModuleDestroy {
  private readonly logger = new Logger(DeliveryProcessor.name);

  constructor(
    @InjectQueue(DELIVERY_QUEUE) private readonly deliveryQueue: Queue,
    @InjectFairShare(DELIVERY_QUEUE) private readonly fairShare: FairShare,
    private readonly env: ApprovalEnv,
    private readonly delivery: DeliveryService,
    private readonly gate: CallbacksFirstGate,
    private readonly inFlight: AttemptsInFlight,
  ) {
    super(deliveryQueue, DELIVERY_JOBS);
  }

  async onApplicationBootstrap(): Promise<void> {
    // Before taking jobs: a worker runs its first stalled check as it starts.
    await onStalledOut(this.deliveryQueue, (jobId) => this.stalledOut(jobId));
    super.onApplicationBootstrap();
    await this.fairShare.serve(deliverySlots(this.env.DELIVERY_SLOTS));
  }

  /** After a shutdown signal, this process takes no job while its attempts in flight finish. */
  async onModuleDestroy(): Promise<void> {
    if (!this.inFlight.mayStart) await this.fairShare.leave();
  }

  /**
   * An attempt whose job Bull failed because each worker sending it stopped is logged failed and goes on as a
   * failed attempt does (a retry, or DeliveryFailed). Bull keeps the job failed; the approval has moved on, so
   * the sweep finds nothing to send again. Every process hears it; the first to log the attempt owns it.
   */
  private stalledOut(jobId: string): void {
    this.stalledOutAttempt(jobId)
      .then((job) => job && this.delivery.stalledOut(job))
      .catch((error: Error) =>
        this.logger.error({ jobId, error: error.message }, 'stalled-out delivery attempt not settled'),
      );
  }

  /**
   * A job taken after a shutdown signal (this process may take a few before it stops fetching) goes back to
   * the fair share, for another worker, with its Bull attempts unspent.
   */
  private async handBack(job: Job): Promise<void> {
    await this.fairShare.leave();
    await this.fairShare.putBack(job, HAND_BACK_MS);
  }

  /** The attempt of a stalled-out job: its data while Bull keeps it (removeOnFail), else its id (approvalId:attempt). */
  private async stalledOutAttempt(jobId: string): Promise<DeliveryAttemptJob | null> {
    const data = (await this.deliveryQueue.getJob(jobId))?.data as Partial<DeliveryAttemptJob> | undefined;
    if (data?.approvalId && Number.isInteger(data.attempt)) return data as DeliveryAttemptJob;
    const [, approvalId, attempt] = /^([0-9a-f-]{36}):(\d+)$/i.exec(jobId) ?? [];
    return approvalId ? { approvalId, attempt: Number(attempt) } : null;
  }

  protected handlers(): JobHandlers<DeliveryJobs> {
    return {
      [DEFAULT_JOB_NAME]: {
        concurrency: this.env.DELIVERY_SLOTS,
        fairShare: this.fairShare,
        // Callbacks in hand in this process go first.
        around: async (work, job) => {
          await this.gate.turn();
          return this.inFlight.mayStart ? this.inFlight.track(work()) : this.handBack(job);
        },
        run: (data, job) => this.delivery.run(data, job),
      },
    };
  }
}
