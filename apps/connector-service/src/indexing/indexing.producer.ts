import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { addJob, dropOtherIntervals, addJobs, ContractQueue, FairShare, fairJob, InjectFairShare } from '@app/queue';
import {
  ExtractTextJob,
  extractTextJobId,
  INDEXING_JOB_ATTEMPTS,
  INDEXING_JOB_BACKOFF,
  INDEXING_JOBS,
  INDEXING_QUEUE,
  IndexingJobName,
  IndexingJobs,
  LayOutTextJob,
  layOutTextJobId,
} from './indexing.jobs';

/**
 * The only place that adds jobs to the indexing queue. A tenant's text extractions go through the queue's
 * fair share (docs/fair-share.md): they enter Bull when an extraction slot is the tenant's, round robin
 * between the tenants with extractions waiting. Job ids make adding the same work twice a no-op.
 */
@Injectable()
export class IndexingProducer {
  constructor(
    @InjectQueue(INDEXING_QUEUE) private readonly queue: ContractQueue<IndexingJobs>,
    @InjectFairShare(INDEXING_QUEUE) private readonly fairShare: FairShare,
  ) {}

  /** Text extractions of a tenant's documents. */
  async extractText(jobs: ExtractTextJob[], tenantId: string): Promise<void> {
    if (!jobs.length) return;
    await this.fairShare.addMany(
      jobs.map((data) => ({
        tenantId,
        job: fairJob(
          INDEXING_JOBS,
          IndexingJobName.ExtractText,
          extractTextJobId(data),
          { documentId: data.documentId, contentSha256: data.contentSha256, tenantId },
          // A failed job is not kept: its id would block the sweep from adding the same work again.
          {
            attempts: INDEXING_JOB_ATTEMPTS,
            backoff: INDEXING_JOB_BACKOFF,
            removeOnComplete: true,
            removeOnFail: true,
          },
        ),
      })),
    );
  }

  /**
   * Texts to lay out, behind the work already waiting (FIFO), outside the fair share: a one-off backfill of
   * texts extracted before layouts were kept, one job at a time per process, searchable meanwhile.
   */
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

  /** A repeating sweep that re-adds extraction work a lost job or a crashed process left behind; it takes no slot. */
  async scheduleSweep(everyMs: number): Promise<void> {
    await dropOtherIntervals(this.queue, IndexingJobName.Sweep, 'sweep', everyMs);
    await addJob(
      this.queue,
      IndexingJobName.Sweep,
      {},
      { repeat: { every: everyMs }, jobId: 'sweep', removeOnComplete: true, removeOnFail: true },
    );
  }
}
