import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { addJob } from '@app/queue';
import { ConnectorEnv } from '../connector-env';
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
  constructor(
    @InjectQueue(INDEXING_QUEUE) private readonly queue: Queue,
    private readonly env: ConnectorEnv,
  ) {}

  /**
   * `run.savedBefore`: the documents the sync run saved before these. A run's first
   * EXTRACTION_AHEAD_PER_RUN go ahead of the jobs already waiting (a big run's backlog, say), so a small
   * data source is searchable soon whatever else is being extracted; the rest wait their turn.
   */
  async extractText(jobs: ExtractTextJob[], run?: { savedBefore: number }): Promise<void> {
    if (!jobs.length) return;
    const ahead = run !== undefined && run.savedBefore < this.env.EXTRACTION_AHEAD_PER_RUN;
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
          lifo: ahead,
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
