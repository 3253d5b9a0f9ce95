import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { addJob } from '@app/queue';
import {
  ExtractTextJob,
  extractTextJobId,
  INDEXING_JOB_ATTEMPTS,
  INDEXING_JOB_BACKOFF,
  INDEXING_JOBS,
  INDEXING_QUEUE,
  IndexingJobName,
} from './indexing.jobs';

/** The only place that adds jobs to the indexing queue. Job ids make adding the same work twice a no-op. */
@Injectable()
export class IndexingProducer {
  constructor(@InjectQueue(INDEXING_QUEUE) private readonly queue: Queue) {}

  async extractText(jobs: ExtractTextJob[]): Promise<void> {
    if (!jobs.length) return;
    await this.queue.addBulk(
      jobs.map((data) => ({
        name: IndexingJobName.ExtractText,
        data: { documentId: data.documentId, contentSha256: data.contentSha256 },
        // A failed job is not kept: its id would block the sweep from adding the same work again.
        opts: {
          jobId: extractTextJobId(data),
          attempts: INDEXING_JOB_ATTEMPTS,
          backoff: INDEXING_JOB_BACKOFF,
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
  }

  /** A repeating sweep that re-adds extraction work a lost job or a crashed process left behind. */
  async scheduleSweep(everyMs: number): Promise<void> {
    await addJob(
      this.queue,
      INDEXING_JOBS,
      IndexingJobName.Sweep,
      {},
      { repeat: { every: everyMs }, jobId: 'sweep', removeOnComplete: true, removeOnFail: true },
    );
  }
}
