import type { WebhookAuthType } from '@app/contracts/views';
import type { ApprovalLogEntity } from './approval-log.entity';
import type { ApprovalStatus, DecisionStatus, LogEntryType } from './approval-state';
import type { ApprovalEntity } from './approval.entity';

/** The rows the approval statements take and give back. Secrets appear only sealed or hashed. */

export type LogEntry = Partial<
  Pick<ApprovalLogEntity, 'attempt' | 'httpStatus' | 'durationMs' | 'error' | 'comment' | 'decidedBy' | 'reminder'>
> & { type: LogEntryType };

export interface NewApproval {
  tenantId: string;
  executionId: string;
  stepId: string;
  agentName: string;
  message: string;
  stepInput: unknown;
  previousResults: unknown;
  webhookUrl: string;
  authType: WebhookAuthType;
  authEncrypted: string | null;
  requestFingerprint: string;
  timeoutSeconds: number;
  maxRetryAttempts: number;
  callbackId: string;
  callbackTokenHash: string;
  callbackTokenSealed: string;
  /** No decision within this many seconds: TimedOut. Null: no limit. */
  decisionTimeoutSeconds: number | null;
  /** While awaiting a decision, a reminder every this many seconds. Null: none. */
  remindAfterSeconds: number | null;
}

/** What a delivery attempt needs, read in one query, with what a crashed worker may have logged already. */
export interface DeliveryView {
  id: string;
  tenantId: string;
  executionId: string;
  stepId: string;
  agentName: string;
  message: string;
  stepInput: unknown;
  previousResults: unknown;
  webhookUrl: string;
  authType: WebhookAuthType;
  authEncrypted: string | null;
  timeoutSeconds: number;
  maxRetryAttempts: number;
  callbackId: string;
  callbackTokenSealed: string | null;
  status: ApprovalStatus;
  createdAt: Date;
  /** Its decision deadline has passed (by the database's clock), though no worker may have timed it out yet. */
  overdue: boolean;
  /** A 410 Gone answer to an extra attempt ended its reminders: a reminder claimed before is not sent. */
  remindersStopped: boolean;
  loggedAttempt: { httpStatus: number | null; durationMs: number | null; error: string | null } | null;
}

export interface AttemptRecord {
  delivered: boolean;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  /** The reminder this attempt was (1, 2, …); absent for any other attempt. */
  reminder?: number;
}

export type AttemptToRecord = { id: string; attempt: number } & AttemptRecord;

/** A final move asked for: the approval, the state it goes to, and its log entry. */
export interface DecisionMove {
  id: string;
  to: DecisionStatus;
  entry: LogEntry;
  /** What the decider handed back (a callback's `output`). */
  output: Record<string, unknown> | null;
}

/** An approval as a final move left it: what its decision event is built from. */
export interface DecidedApproval {
  id: string;
  tenantId: string;
  executionId: string;
  stepId: string;
  callbackId: string;
  status: DecisionStatus;
  comment: string | null;
  decidedBy: string | null;
  output: Record<string, unknown> | null;
  decidedAt: Date;
}

/** An approval as a reminder's round finds it, with the reminder it claimed (null when it claimed none). */
export interface ReminderClaim {
  status: ApprovalStatus;
  tenantId: string;
  webhookUrl: string;
  createdAt: Date;
  remindAfterSeconds: number | null;
  decisionDueAt: Date | null;
  /** A 410 Gone answer to an extra attempt ended the reminders: no round follows. */
  remindersStopped: boolean;
  /** The reminder's number (1, 2, …) and the attempt number it takes; null when this round sends none. */
  reminder: number | null;
  attempt: number | null;
}

/** A reminder round to add again: its job id is `approvalId:reminder-round`. */
export interface ReminderRound {
  approvalId: string;
  round: number;
}

export type CallbackView = Pick<
  ApprovalEntity,
  'id' | 'callbackTokenHash' | 'status' | 'callbackId' | 'executionId' | 'decidedAt'
>;

/** A Pending approval that nothing sends any more, and the last attempt logged for it (0 for none). */
export interface StalledApproval {
  approvalId: string;
  tenantId: string;
  webhookUrl: string;
  attempt: number;
}
