import { DEFAULT_JOB_NAME, queueContract } from '@app/queue';
import { IsBoolean, IsInt, IsOptional, IsString, IsUUID, MaxLength, Min } from 'class-validator';

/** Internal queue of delivery attempts. WARNING: renaming needs a migration plan (drain it first). */
export const DELIVERY_QUEUE = 'approval-delivery';

export class DeliveryAttemptJob {
  @IsUUID()
  approvalId: string;

  @IsInt()
  @Min(1)
  attempt: number;

  /** The approval's tenant, so a worker can keep its share of slots without reading the approval (absent on older jobs). */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  tenantId?: string;

  /** An extra attempt asked for while the approval awaits its decision: no retry follows it, and it moves nothing. */
  @IsOptional()
  @IsBoolean()
  redelivery?: boolean;

  /** A reminder (an extra attempt as well): which one, sent in the body as `reminder` and logged with the attempt. */
  @IsOptional()
  @IsInt()
  @Min(1)
  reminder?: number;

  /** How many times this attempt was put back because its tenant had its share of slots in use. */
  @IsOptional()
  @IsInt()
  @Min(1)
  held?: number;
}

/** Attempts are added without a job name (Bull's default), as they always were. */
export const DELIVERY_JOBS = queueContract(DELIVERY_QUEUE, { [DEFAULT_JOB_NAME]: DeliveryAttemptJob });
export type DeliveryJobs = typeof DELIVERY_JOBS.payloads;

/** Bull-level retries cover our own failures (database, Redis), not the receiver's. */
export const DELIVERY_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'fixed', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: 1000,
} as const;

/** Worker slots for delivery attempts in one process. */
export const DELIVERY_CONCURRENCY = 50;

/** An attempt put back for its tenant's share waits this long, doubling each time it is put back, up to the last. */
export const HELD_ATTEMPT_DELAY_MS = { first: 500, last: 10_000 } as const;
