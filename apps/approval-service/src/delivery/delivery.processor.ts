import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bull';
import { DEFAULT_JOB_NAME, FairShare, InjectFairShare, JobHandlers, onStalledOut, QueueProcessor } from '@app/queue';
import { ApprovalEnv } from '../approval-env';
import { CallbacksFirstGate } from '../callbacks/callbacks-first.gate';
import { DeliveryAttemptJob, DELIVERY_JOBS, DELIVERY_QUEUE, DeliveryJobs, deliverySlots } from './delivery.jobs';
import { DeliveryService } from './delivery.service';

/** Thin: validate the job, delegate. Registered only in processes that run workers, whose slots join the fair share. */
@Injectable()
export class DeliveryProcessor extends QueueProcessor<DeliveryJobs> {
  private readonly logger = new Logger(DeliveryProcessor.name);

  constructor(
    @InjectQueue(DELIVERY_QUEUE) private readonly deliveryQueue: Queue,
    @InjectFairShare(DELIVERY_QUEUE) private readonly fairShare: FairShare,
    private readonly env: ApprovalEnv,
    private readonly delivery: DeliveryService,
    private readonly gate: CallbacksFirstGate,
  ) {
    super(deliveryQueue, DELIVERY_JOBS);
  }

  async onApplicationBootstrap(): Promise<void> {
    // Before taking jobs: a worker runs its first stalled check as it starts.
    await onStalledOut(this.deliveryQueue, (jobId) => this.stalledOut(jobId));
    super.onApplicationBootstrap();
    await this.fairShare.serve(deliverySlots(this.env.DELIVERY_SLOTS));
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
        around: async <R>(work: () => Promise<R>) => {
          await this.gate.turn();
          return work();
        },
        run: (data, job) => this.delivery.run(data, job),
      },
    };
  }
}
