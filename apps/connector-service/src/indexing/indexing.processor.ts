import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import type { Job, Queue } from 'bull';
import { DatabaseOutages } from '@app/database';
import { FairShare, InjectFairShare, JobHandlers, onStalledOut, QueueProcessor, RepeatingJob } from '@app/queue';
import { ExtractionGate, tenantOf } from './extraction-gate';
import {
  extractionSlots,
  extractTextJobOf,
  INDEXING_JOBS,
  INDEXING_QUEUE,
  IndexingJobName,
  IndexingJobs,
  layOutTextJobOf,
} from './indexing.jobs';
import { IndexingProducer } from './indexing.producer';
import { IndexingService } from './indexing.service';
import { TextLayouts } from './text-layouts';

/**
 * When an extraction put back (it waited for its tenant's sync with a slot another tenant needs) is due
 * again; its tenant takes no extraction slot until then, so the tenants that wait share every slot.
 */
const EXTRACTION_PUT_BACK_MS = 1000;

/**
 * Runs the indexing queue's jobs in worker processes (PROCESS_ROLE worker or all); its extraction slots join
 * the queue's fair share, and each text extraction holds one of its tenant's until it ends. Thin: validate, delegate.
 */
@Injectable()
export class IndexingProcessor extends QueueProcessor<IndexingJobs> implements OnModuleDestroy {
  private readonly logger = new Logger(IndexingProcessor.name);
  private readonly sweep: RepeatingJob;

  constructor(
    @InjectQueue(INDEXING_QUEUE) private readonly indexingQueue: Queue,
    @InjectFairShare(INDEXING_QUEUE) private readonly fairShare: FairShare,
    private readonly indexing: IndexingService,
    private readonly layouts: TextLayouts,
    private readonly producer: IndexingProducer,
    private readonly gate: ExtractionGate,
    private readonly env: ConnectorEnv,
    private readonly outages: DatabaseOutages,
  ) {
    super(indexingQueue, INDEXING_JOBS);
    this.sweep = new RepeatingJob('indexing sweep', () => producer.scheduleSweep(env.SWEEP_MS), env.SWEEP_MS);
  }

  onModuleDestroy(): void {
    this.sweep.stop();
  }

  async onApplicationBootstrap(): Promise<void> {
    // Before taking jobs: a worker started again after a file ended the last one fails that job in its first stalled check.
    await onStalledOut(this.indexingQueue, (jobId) => this.stalledOut(jobId));
    super.onApplicationBootstrap();
    await this.fairShare.serve(extractionSlots(this.env.EXTRACTION_WORKERS));
    await this.sweep.start();
  }

  /**
   * A job Bull failed in its stalled check (and removed): an extraction's document is Failed, a layout's text is
   * laid out as stored, as when their last attempt fails; through an outage of the database.
   */
  private stalledOut(jobId: string): void {
    const extraction = extractTextJobOf(jobId);
    const layout = layOutTextJobOf(jobId);
    const giveUp: (() => Promise<unknown>) | null = extraction
      ? () => this.indexing.stalledOut(extraction)
      : layout
        ? () => this.layouts.layOutStored(layout)
        : null;
    if (!giveUp) return;
    this.outages
      .hold(giveUp)
      .catch((error: Error) =>
        this.logger.error(
          { jobId, error: error.message },
          'stalled-out indexing job not given up; the sweep queues it again',
        ),
      );
  }

  protected handlers(): JobHandlers<IndexingJobs> {
    // Extraction waits while this process has a sync step of its tenant in hand, and through an outage of the database.
    const inTurn = async <R>(work: () => Promise<R>, job: Job) => {
      await this.gate.turn(tenantOf(job));
      return this.outages.hold(work);
    };
    // An extraction is put back rather than wait with its slot while another tenant waits for one (ExtractionGate).
    const extractionInTurn = (work: () => Promise<unknown>, job: Job) =>
      this.gate.extraction(
        tenantOf(job),
        () => this.outages.hold(work),
        async () => {
          await this.fairShare.putBack(job, EXTRACTION_PUT_BACK_MS, { rest: true });
          return 'PutBack';
        },
        (tenantId) => this.fairShare.wantedByAnother(tenantId),
      );
    return {
      [IndexingJobName.ExtractText]: {
        // Enough jobs to keep every extraction process busy while another job saves its text.
        concurrency: extractionSlots(this.env.EXTRACTION_WORKERS).slots,
        fairShare: this.fairShare,
        around: extractionInTurn,
        run: (data) => this.indexing.extractText(data),
        giveUp: async (data, error) => {
          await this.indexing.giveUp(data, error);
          return 'Failed';
        },
      },
      // One at a time: texts extracted before layouts were kept are laid out in the background.
      [IndexingJobName.LayOutText]: {
        concurrency: 1,
        around: inTurn,
        run: (data) => this.layouts.layOut(data),
        // A PDF that cannot be read again (its blob, say) is laid out without pages rather than queued again each sweep.
        giveUp: (data) => this.layouts.layOutStored(data),
      },
      [IndexingJobName.Sweep]: {
        concurrency: 1,
        run: async () => ({
          requeued: await this.indexing.requeuePending(),
          layouts: await this.layouts.queueMissing(),
        }),
      },
    };
  }
}
