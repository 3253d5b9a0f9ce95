import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { DEFAULT_JOB_NAME, JobHandlers, QueueProcessor } from '@app/queue';
import { CallbacksFirstGate } from '../callbacks/callbacks-first.gate';
import { DELIVERY_CONCURRENCY, DELIVERY_JOBS, DELIVERY_QUEUE, DeliveryJobs } from './delivery.jobs';
import { DeliveryService } from './delivery.service';

/** Thin: validate the job, delegate. Registered only in processes that run workers. */
@Injectable()
export class DeliveryProcessor extends QueueProcessor<DeliveryJobs> {
  constructor(
    @InjectQueue(DELIVERY_QUEUE) queue: Queue,
    private readonly delivery: DeliveryService,
    private readonly gate: CallbacksFirstGate,
  ) {
    super(queue, DELIVERY_JOBS);
  }

  protected handlers(): JobHandlers<DeliveryJobs> {
    return {
      [DEFAULT_JOB_NAME]: {
        concurrency: DELIVERY_CONCURRENCY,
        // Callbacks in hand in this process go first.
        around: async <R>(work: () => Promise<R>) => {
          await this.gate.turn();
          return work();
        },
        run: (data) => this.delivery.run(data),
      },
    };
  }
}
