import { DEFAULT_JOB_NAME, queueContract } from '@app/queue';
import { IsInt, IsUUID, Min } from 'class-validator';

/** Internal queue of reminder rounds. WARNING: renaming needs a migration plan (drain it first). */
export const REMINDER_QUEUE = 'approval-reminders';

/**
 * One round of an approval's reminders (jobId `approvalId:reminder-round`), delayed until the request's
 * time plus `round` intervals.
 */
export class ReminderJob {
  @IsUUID()
  approvalId: string;

  /** Which interval since the request: round 3 is due 3 × remindAfterSeconds after it. */
  @IsInt()
  @Min(1)
  round: number;
}

export const REMINDER_JOBS = queueContract(REMINDER_QUEUE, { [DEFAULT_JOB_NAME]: ReminderJob });
export type ReminderJobs = typeof REMINDER_JOBS.payloads;

export const REMINDER_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'fixed', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: 1000,
} as const;

/**
 * A round whose job has not run this long after it was due counts as lost (Redis restarted without its data), and
 * the workers' sweep adds it again; should its job still be there after all, the add is a no-op.
 */
export const LOST_ROUND_AFTER_MS = 3000;

/** Rounds one sweep adds again at most; the next sweep takes the rest. */
export const REMINDER_SWEEP_BATCH = 500;
