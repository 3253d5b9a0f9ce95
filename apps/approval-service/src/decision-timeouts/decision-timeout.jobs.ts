import { DEFAULT_JOB_NAME, queueContract } from '@app/queue';
import { IsUUID } from 'class-validator';

/** Internal queue of decision deadlines. WARNING: renaming needs a migration plan (drain it first). */
export const DECISION_TIMEOUT_QUEUE = 'approval-decision-timeouts';

/** One per approval with a deadline (jobId = approvalId), delayed until the deadline. */
export class DecisionTimeoutJob {
  @IsUUID()
  approvalId: string;
}

export const DECISION_TIMEOUT_JOBS = queueContract(DECISION_TIMEOUT_QUEUE, { [DEFAULT_JOB_NAME]: DecisionTimeoutJob });
export type DecisionTimeoutJobs = typeof DECISION_TIMEOUT_JOBS.payloads;

export const DECISION_TIMEOUT_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'fixed', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: 1000,
} as const;

/** Fired this much after the deadline, so a clock a little ahead of the database's finds the approval due. */
export const DEADLINE_MARGIN_MS = 250;

/** Approvals one sweep times out at most; the next sweep takes the rest. */
export const SWEEP_BATCH = 500;
