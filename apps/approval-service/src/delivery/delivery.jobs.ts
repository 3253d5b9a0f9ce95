import { IsInt, IsUUID, Min } from 'class-validator';

/** Internal queue of delivery attempts. WARNING: renaming needs a migration plan (drain it first). */
export const DELIVERY_QUEUE = 'approval-delivery';

export class DeliveryAttemptJob {
  @IsUUID()
  approvalId: string;

  @IsInt()
  @Min(1)
  attempt: number;
}

/** Bull-level retries cover our own failures (database, Redis), not the receiver's. */
export const DELIVERY_JOB_OPTIONS = { attempts: 5, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: true, removeOnFail: 1000 } as const;
