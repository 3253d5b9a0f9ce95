import { FairShareOptions, queueContract, WorkerSlots } from '@app/queue';
import { IsOptional, IsString, IsUUID, Matches } from 'class-validator';

/**
 * The connector's internal text-extraction queue. WARNING: the queue name and job names are Redis keys
 * that running workers agree on; renaming one needs a migration plan (drain the queue first).
 */
export const INDEXING_QUEUE = 'connector-indexing';

export enum IndexingJobName {
  ExtractText = 'extract-text',
  LayOutText = 'lay-out-text',
  Sweep = 'sweep',
}

/** Extract, chunk and save the text of one document's content version. */
export class ExtractTextJob {
  @IsUUID()
  documentId: string;

  @Matches(/^[0-9a-f]{64}$/, { message: 'contentSha256 must be a lowercase hex SHA-256' })
  contentSha256: string;

  /** The document's tenant, put on the job by the producer: its extraction gives way to its own sync steps only. */
  @IsOptional()
  @IsString()
  tenantId?: string;
}

/** One job per document and content version: adding the same work twice is a no-op. */
export function extractTextJobId(job: ExtractTextJob): string {
  return `${job.documentId}:${job.contentSha256}`;
}

/** The extraction a job id names, or null for another job's id (a layout's, the sweep's). */
export function extractTextJobOf(jobId: string): ExtractTextJob | null {
  const [, documentId, contentSha256] = /^([0-9a-f-]{36}):([0-9a-f]{64})$/.exec(jobId) ?? [];
  return documentId ? { documentId, contentSha256 } : null;
}

/** Save where the chunks (and a PDF's pages) of a document's text lie, for text extracted before that was kept. */
export class LayOutTextJob extends ExtractTextJob {}

export function layOutTextJobId(job: LayOutTextJob): string {
  return `layout:${job.documentId}:${job.contentSha256}`;
}

/** The layout a job id names, or null for another job's id. */
export function layOutTextJobOf(jobId: string): LayOutTextJob | null {
  return jobId.startsWith('layout:') ? extractTextJobOf(jobId.slice('layout:'.length)) : null;
}

/** The sweep carries nothing: it re-adds the extractions still pending, and queues texts to lay out. */
export class IndexingSweepJob {}

export const INDEXING_JOBS = queueContract(INDEXING_QUEUE, {
  [IndexingJobName.ExtractText]: ExtractTextJob,
  [IndexingJobName.LayOutText]: LayOutTextJob,
  [IndexingJobName.Sweep]: IndexingSweepJob,
});
export type IndexingJobs = typeof INDEXING_JOBS.payloads;

export const INDEXING_JOB_ATTEMPTS = 4;
export const INDEXING_JOB_BACKOFF = { type: 'exponential', delay: 2000 } as const;
/** Extractions are short and CPU-bound: a lone tenant uses every extraction slot but the reserved one. */
export const INDEXING_FAIR_SHARE: FairShareOptions = { aloneShare: 1 };

/**
 * A worker's extraction slots (and its extraction concurrency): two per extraction process, so each process
 * has a file while another job reads its blob or saves its text, and one more kept for a tenant with none
 * in hand. A lone tenant's extractions so keep every process busy; with the reserved slot among the
 * processes' own (2 slots for 2 processes), a lone tenant extracted in one process and saved in between.
 */
export const extractionSlots = (extractionWorkers: number): WorkerSlots => ({
  slots: 2 * Math.max(1, extractionWorkers) + 1,
  reserved: 1,
});
