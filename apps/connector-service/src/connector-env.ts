import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min, ValidateIf } from 'class-validator';
import { availableParallelism } from 'node:os';
import { BaseEnv, booleanFromEnv } from '@app/config';
import { EXTRACTION_DEFAULTS } from './extraction/extraction-pool';

export class ConnectorEnv extends BaseEnv {
  PORT: number = 3001;
  PUBLIC_BASE_URL = 'http://localhost:3001';

  /** Allow outbound calls to loopback, private, link-local, metadata … addresses (local development and tests only). */
  @IsBoolean()
  @booleanFromEnv()
  ALLOW_PRIVATE_NETWORKS: boolean = false;

  /** Where original file bytes are kept (content-addressed). */
  @IsString()
  BLOB_DIR: string = '.data/blobs';

  /** `fs` (files under BLOB_DIR) or `s3` (an S3-compatible bucket, S3_* below). */
  @IsIn(['fs', 's3'])
  BLOB_STORE: 'fs' | 's3' = 'fs';

  @ValidateIf((env: ConnectorEnv) => env.BLOB_STORE === 's3')
  @IsString()
  S3_BUCKET?: string;

  /** Key prefix inside the bucket, e.g. `connector/`. */
  @IsString()
  S3_PREFIX: string = '';

  /** An S3-compatible endpoint (MinIO, Ceph, R2 …); unset for AWS S3. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  S3_ENDPOINT?: string;

  @IsString()
  S3_REGION: string = 'us-east-1';

  /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible stores need. */
  @IsBoolean()
  @booleanFromEnv()
  S3_FORCE_PATH_STYLE: boolean = true;

  /** Static credentials; unset: the AWS default chain (environment, profile, instance role). */
  @IsOptional()
  @IsString()
  S3_ACCESS_KEY_ID?: string;

  @IsOptional()
  @IsString()
  S3_SECRET_ACCESS_KEY?: string;

  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  S3_REQUEST_TIMEOUT_MS: number = 60_000;

  /**
   * Sync slots one worker process brings to the sync fair share (docs/fair-share.md): the slots of every
   * live worker are one pool, shared between the tenants with sync work waiting, none holding more than
   * half while another waits, nor, since a step may last long, more than half when alone (of the slots not
   * reserved: so 16 lets a lone tenant run 7 steps per process). One of each process's slots is kept for a tenant that holds none.
   */
  @IsInt()
  @Min(1)
  @Max(64)
  SYNC_SLOTS: number = 16;

  /** One run lists and stores at most this many files; past it the run ends PartiallySucceeded (RUN_LIMIT_REACHED). */
  @IsInt()
  @Min(1)
  SYNC_MAX_FILES: number = 1_000_000;

  /** One run lists and stores at most this many bytes (listed sizes summed); default 1 TiB. */
  @IsInt()
  @Min(1)
  SYNC_MAX_BYTES: number = 1024 ** 4;

  /**
   * One run lists at most this many pages of folder listings (every folder is a page at least): past it the
   * run's listing stops there (RUN_LIMIT_REACHED), so a document system that answers pages forever ends.
   */
  @IsInt()
  @Min(1)
  SYNC_MAX_PAGES: number = 1_000_000;

  /** One run lists at most this many folder levels below a selected folder. */
  @IsInt()
  @Min(0)
  @Max(10_000)
  SYNC_MAX_DEPTH: number = 64;

  /** How often an open sync-run event stream checks that its caller may still follow the run (ends when not). */
  @IsInt()
  @Min(1)
  @Max(60)
  SYNC_RUN_STREAM_RECHECK_SECONDS: number = 60;

  /**
   * Processes that extract text (every format), one file at a time each. Default: one per core; they run
   * at EXTRACTION_NICE and wait for sync steps, so the event loop keeps its share. Each holds its own heap
   * and PDF reader.
   */
  @IsInt()
  @Min(1)
  @Max(64)
  EXTRACTION_WORKERS: number = Math.max(1, availableParallelism());

  /** How long the text extraction of one file may take; past it its process is ended and the document is Failed. */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  EXTRACTION_TIMEOUT_MS: number = EXTRACTION_DEFAULTS.timeoutMs;

  /** Heap one extraction process may use; past it the process ends and the document is Failed. */
  @IsInt()
  @Min(32)
  EXTRACTION_MAX_HEAP_MB: number = EXTRACTION_DEFAULTS.maxHeapMb;

  /** Nice value of the extraction processes (Linux): they yield the CPU to the event loop and the database. */
  @IsInt()
  @Min(0)
  @Max(19)
  EXTRACTION_NICE: number = EXTRACTION_DEFAULTS.nice;

  /** Most text (UTF-8 bytes) kept for one document; a file that gives more is Failed. */
  @IsInt()
  @Min(1024)
  MAX_TEXT_BYTES: number = EXTRACTION_DEFAULTS.maxTextBytes;

  /** A run that would delete more than this percent of a data source's documents holds its deletions until confirmed (100: never). */
  @IsInt()
  @Min(0)
  @Max(100)
  DELETE_GUARD_PERCENT: number = 30;

  /** The per-file ledgers of this many latest runs per data source are kept; older runs keep their counts only. */
  @IsInt()
  @Min(1)
  LEDGER_KEEP_RUNS: number = 20;

  /** A file larger than this (listed, or once its download passes it) is not stored: Skipped, TooLarge. Default 2 GiB. */
  @IsInt()
  @Min(1)
  MAX_FILE_BYTES: number = 2 * 1024 ** 3;

  /** Wall-clock limit of one document-system call that is not file content; also a download's grace period. */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  DOCUMENT_SYSTEM_DEADLINE_MS: number = 60_000;

  /** After its grace period, a download must have averaged at least this rate, or it fails. */
  @IsInt()
  @Min(1)
  DOCUMENT_SYSTEM_MIN_BYTES_PER_SECOND: number = 256 * 1024;

  /** A download ends by its grace plus its listed size at DOCUMENT_SYSTEM_MIN_BYTES_PER_SECOND, and never later than this; past it the file is Failed. */
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 3600)
  MAX_FILE_SECONDS: number = 3600;

  /** One listing page (workgroups, a folder's children) holds at most this many items; a longer page fails that call. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  LISTING_MAX_ITEMS: number = 10_000;

  /**
   * How often workers sweep for due and lost work: scheduled syncs that are due, runs and tasks whose jobs
   * were lost, documents still awaiting extraction. Each sweep is a repeating job, renewed as often.
   */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  SWEEP_MS: number = 60_000;

  /** Document-system calls one folder-picker request may make (CONTRACT.md: at most 50). */
  @IsInt()
  @Min(1)
  @Max(50)
  PICKER_MAX_CALLS: number = 50;

  /** Seconds one folder-picker request may spend on document-system calls (CONTRACT.md: at most 10). */
  @IsInt()
  @Min(1)
  @Max(10)
  PICKER_MAX_SECONDS: number = 10;

  /** Timeout of each call to a provider's token or revocation endpoint. */
  @IsInt()
  @Min(100)
  @Max(300_000)
  OAUTH_HTTP_TIMEOUT_MS: number = 10_000;

  /** Access tokens are refreshed this long before they expire. */
  @IsInt()
  @Min(0)
  @Max(86_400)
  OAUTH_REFRESH_AHEAD_SECONDS: number = 60;

  /** How long a started authorization (its state) may be completed. */
  @IsInt()
  @Min(1)
  @Max(86_400)
  OAUTH_STATE_TTL_SECONDS: number = 600;

  /** The built web console served under /console (relative to the working directory). */
  @IsString()
  CONSOLE_DIR: string = 'dist/console';

  /** `POST /console/dev-token` signs tokens for any tenant, user and role: development only. */
  @IsBoolean()
  @booleanFromEnv()
  CONSOLE_DEV_LOGIN: boolean = false;

  /** How often workers relay connector events their writers could not publish at once. */
  @IsInt()
  @Min(50)
  @Max(60_000)
  OUTBOX_POLL_MS: number = 1000;

  /** How long one search statement may run (PostgreSQL's statement_timeout); past it the search answers 503 SEARCH_TIMEOUT. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  SEARCH_TIMEOUT_MS: number = 5000;

  /** Where the console's approvals monitor finds the approval-service (its browser calls it directly). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  APPROVAL_SERVICE_URL: string = 'http://localhost:3002';
}
