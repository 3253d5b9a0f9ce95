import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { validJobData } from '@app/queue';
import { CallbacksFirstGate } from '../callbacks/callbacks-first.gate';
import { DELIVERY_CONCURRENCY, DELIVERY_QUEUE, DeliveryAttemptJob } from './delivery.jobs';
import { DeliveryService } from './delivery.service';

/** Thin: validate the job, delegate. Registered only in processes that run workers. */
@Processor(DELIVERY_QUEUE)
export class DeliveryProcessor {
  constructor(
    private readonly delivery: DeliveryService,
    private readonly gate: CallbacksFirstGate,
  ) {}

  @Process({ concurrency: DELIVERY_CONCURRENCY })
  async handle(job: Job): Promise<void> {
    const data = await validJobData(job, DeliveryAttemptJob);
    await this.gate.turn();
    await this.delivery.run(data);
  }
}
