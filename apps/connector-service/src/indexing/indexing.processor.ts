import { InjectQueue } from '@nestjs/bull';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import type { Job, Queue } from 'bull';
import { validJobData } from '@app/queue';
import { ExtractionGate } from './extraction-gate';
import {
  ExtractTextJob,
  INDEXING_CONCURRENCY,
  INDEXING_JOB_ATTEMPTS,
  INDEXING_QUEUE,
  IndexingJobName,
} from './indexing.jobs';
import { IndexingProducer } from './indexing.producer';
import { IndexingOutcome, IndexingService } from './indexing.service';

const SWEEP_EVERY_MS = 60_000;

/** Runs the indexing queue's jobs in worker processes (PROCESS_ROLE worker or all). Thin: validate, delegate. */
@Injectable()
export class IndexingProcessor implements OnApplicationBootstrap {
  constructor(
    @InjectQueue(INDEXING_QUEUE) private readonly queue: Queue,
    private readonly indexing: IndexingService,
    private readonly producer: IndexingProducer,
    private readonly gate: ExtractionGate,
    private readonly env: ConnectorEnv,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Enough jobs to keep every extraction thread busy while another job saves its text.
    const concurrency = Math.max(INDEXING_CONCURRENCY, this.env.EXTRACTION_WORKERS);
    void this.queue.process(IndexingJobName.ExtractText, concurrency, (job) => this.extractText(job));
    void this.queue.process(IndexingJobName.Sweep, 1, () => this.indexing.requeuePending());
    await this.producer.scheduleSweep(SWEEP_EVERY_MS);
  }

  private async extractText(job: Job): Promise<IndexingOutcome | 'Failed'> {
    const data = await validJobData(job, ExtractTextJob);
    await this.gate.turn();
    try {
      return await this.indexing.extractText(data);
    } catch (error) {
      if (job.attemptsMade + 1 < (job.opts.attempts ?? INDEXING_JOB_ATTEMPTS)) throw error;
      await this.indexing.giveUp(data, error);
      return 'Failed';
    }
  }
}
