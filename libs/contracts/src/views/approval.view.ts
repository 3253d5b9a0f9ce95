export const WEBHOOK_AUTH_TYPES = ['None', 'ApiKey', 'BearerToken', 'BasicAuth', 'CustomHeader'] as const;
export type WebhookAuthType = (typeof WEBHOOK_AUTH_TYPES)[number];

/**
 * Pending (created, delivering) → AwaitingDecision (2xx received) → Approved | Denied;
 * Pending → DeliveryFailed; Pending | AwaitingDecision → Cancelled | TimedOut.
 */
export const APPROVAL_STATUSES = [
  'Pending',
  'AwaitingDecision',
  'Approved',
  'Denied',
  'DeliveryFailed',
  'Cancelled',
  'TimedOut',
] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const APPROVAL_OUTCOMES = [
  'Approved',
  'Denied',
  'DeliveryFailed',
  'Cancelled',
  'TimedOut',
  'InvalidRequest',
] as const;
export type ApprovalOutcome = (typeof APPROVAL_OUTCOMES)[number];

export const APPROVAL_LOG_ENTRY_TYPES = [
  'Requested',
  'DeliveryAttempt',
  'Delivered',
  'DeliveryFailed',
  'CallbackRejected',
  'Decided',
  'Cancelled',
  'TimedOut',
] as const;
export type ApprovalLogEntryType = (typeof APPROVAL_LOG_ENTRY_TYPES)[number];

export interface ApprovalLogEntryView {
  at: string;
  type: ApprovalLogEntryType;
  attempt: number | null;
  httpStatus: number | null;
  durationMs: number | null;
  error: string | null;
  comment: string | null;
  decidedBy: string | null;
  /** On a reminder's DeliveryAttempt: which reminder it was (1, 2, …); null otherwise. */
  reminder: number | null;
}

/** An approval as the API shows it: never the callback token nor any webhook auth value. */
export interface ApprovalView {
  id: string;
  approvalId: string;
  callbackId: string;
  executionId: string;
  stepId: string;
  agentName: string;
  message: string;
  status: ApprovalStatus;
  webhook: {
    url: string;
    authentication: { type: WebhookAuthType };
    timeoutSeconds: number;
    maxRetryAttempts: number;
    /** While awaiting a decision, the webhook is sent again every this many seconds; null: no reminders. */
    remindAfterSeconds: number | null;
  };
  comment: string | null;
  decidedBy: string | null;
  /** The JSON object the decider handed back with the callback; null when none. */
  output: Record<string, unknown> | null;
  /** The page where a person decides (answers while the approval awaits a decision); null when DECISION_PAGE=false. */
  decisionPageUrl: string | null;
  decisionDueAt: string | null;
  decidedAt: string | null;
  /** Callbacks refused for a wrong token (the log keeps the first 20). */
  rejectedCallbacks: number;
  createdAt: string;
  updatedAt: string;
  log: ApprovalLogEntryView[];
}

/** `GET /v1/approvals`: each approval with the latest entries of its log only. */
export interface ApprovalListItemView extends ApprovalView {
  logTruncated: boolean;
}

/** `POST /v1/approvals`: 201 for a new approval, 200 for a repeat. */
export interface ApprovalCreatedView {
  approvalId: string;
  callbackId: string;
  status: ApprovalStatus;
}

/** `POST /v1/approvals/{id}/redeliver` (202). */
export interface RedeliveryView {
  approvalId: string;
  attempt: number;
}

/** `POST /v1/approvals/test-webhook`: the one attempt's outcome. */
export interface WebhookTestView {
  delivered: boolean;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
}

/** `POST /v1/AgentExecutionWebhookApproval/callback`: the decision recorded. */
export interface CallbackDecisionView {
  callbackId: string;
  approvalId: string;
  executionId: string;
  status: ApprovalStatus;
  decidedAt: string;
}
