import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { DEFAULT_JOB_NAME, FairShare, InjectFairShare, JobHandlers, QueueProcessor } from '@app/queue';
import { ApprovalEnv } from '../approval-env';
import { CallbacksFirstGate } from '../callbacks/callbacks-first.gate';
import { DELIVERY_JOBS, DELIVERY_QUEUE, DeliveryJobs, deliverySlots } from './delivery.jobs';
import { DeliveryService } from './delivery.service';

/** Thin: validate the job, delegate. Registered only in processes that run workers, whose slots join the fair share. */
@Injectable()
export class DeliveryProcessor extends QueueProcessor<DeliveryJobs> {
  constructor(
    @InjectQueue(DELIVERY_QUEUE) queue: Queue,
    @InjectFairShare(DELIVERY_QUEUE) private readonly fairShare: FairShare,
    private readonly env: ApprovalEnv,
    private readonly delivery: DeliveryService,
    private readonly gate: CallbacksFirstGate,
  ) {
    super(queue, DELIVERY_JOBS);
  }

  async onApplicationBootstrap(): Promise<void> {
    super.onApplicationBootstrap();
    await this.fairShare.serve(deliverySlots(this.env.DELIVERY_SLOTS));
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
