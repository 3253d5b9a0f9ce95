import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { addJob, addJobs, ContractQueue } from '@app/queue';
import { ConnectorEnv } from '../connector-env';
import { ExtractionHeadStart } from './extraction-head-start';
import {
  ExtractTextJob,
  extractTextJobId,
  INDEXING_JOB_ATTEMPTS,
  INDEXING_JOB_BACKOFF,
  INDEXING_QUEUE,
  IndexingJobName,
  IndexingJobs,
  LayOutTextJob,
  layOutTextJobId,
} from './indexing.jobs';

/** The only place that adds jobs to the indexing queue. Job ids make adding the same work twice a no-op. */
@Injectable()
export class IndexingProducer {
  private readonly headStart: ExtractionHeadStart;

  constructor(
    @InjectQueue(INDEXING_QUEUE) private readonly queue: ContractQueue<IndexingJobs>,
    env: ConnectorEnv,
  ) {
    this.headStart = new ExtractionHeadStart(env.EXTRACTION_AHEAD_PER_MINUTE);
  }

  /**
   * A sync's documents (`fromSyncOf` their tenant) go ahead of the jobs already waiting, another tenant's
   * backlog say, while the tenant has allowance left (EXTRACTION_AHEAD_PER_MINUTE); the rest wait their turn.
   */
  async extractText(jobs: ExtractTextJob[], fromSyncOf?: string): Promise<void> {
    if (!jobs.length) return;
    const ahead = fromSyncOf !== undefined && this.headStart.take(fromSyncOf, jobs.length);
    await addJobs(
      this.queue,
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

  /** Texts to lay out, behind the work already waiting (FIFO): they are searchable meanwhile. */
  async layOutText(jobs: LayOutTextJob[]): Promise<void> {
    if (!jobs.length) return;
    await addJobs(
      this.queue,
      jobs.map((data) => ({
        name: IndexingJobName.LayOutText,
        data: { documentId: data.documentId, contentSha256: data.contentSha256 },
        opts: {
          jobId: layOutTextJobId(data),
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
      IndexingJobName.Sweep,
      {},
      { repeat: { every: everyMs }, jobId: 'sweep', removeOnComplete: true, removeOnFail: true },
    );
  }
}
