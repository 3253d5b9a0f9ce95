import { DEFAULT_JOB_NAME, FairShareOptions, queueContract, WorkerSlots } from '@app/queue';
import { IsBoolean, IsInt, IsOptional, IsString, IsUUID, MaxLength, Min } from 'class-validator';

/** Internal queue of delivery attempts. WARNING: renaming needs a migration plan (drain it first). */
export const DELIVERY_QUEUE = 'approval-delivery';

export class DeliveryAttemptJob {
  @IsUUID()
  approvalId: string;

  @IsInt()
  @Min(1)
  attempt: number;

  /** The approval's tenant, whose share of the delivery slots the attempt takes (absent on older jobs). */
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

  /**
   * A first attempt asked for again: a repeated request, or a request job delivered again. Intake may be
   * sending that attempt at this moment; the job then waits for it (DeliveryService.run).
   */
  @IsOptional()
  @IsBoolean()
  again?: boolean;

  /** Jobs from before the fair share were put back this many times while their tenant had its share in use. */
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

/**
 * An attempt may wait on its receiver for an hour: a lone tenant too holds at most half of the slots, so
 * the tenant that comes next finds the other half free however long the first one's receivers hang.
 */
export const DELIVERY_FAIR_SHARE: FairShareOptions = { aloneShare: 0.5 };

/**
 * A worker's delivery slots, of which about one in six (8 of 50) only a tenant with no attempt in flight
 * may take: however many tenants' receivers hang, a newcomer's first attempt starts at once.
 */
export const deliverySlots = (slots: number): WorkerSlots => ({
  slots,
  reserved: Math.max(1, Math.round(slots * 0.16)),
});

/** The fair-share hold of a first attempt intake sends itself, for as long as it is in flight. */
export function inlineHoldId(approvalId: string): string {
  return `inline:${approvalId}`;
}
