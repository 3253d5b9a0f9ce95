import { ApiProperty } from '@nestjs/swagger';
import {
  APPROVAL_LOG_ENTRY_TYPES,
  APPROVAL_STATUSES,
  ApprovalCreatedView,
  ApprovalListItemView,
  ApprovalLogEntryType,
  ApprovalLogEntryView,
  ApprovalStatus,
  ApprovalView,
  CallbackDecisionView,
  RedeliveryView,
  WEBHOOK_AUTH_TYPES,
  WebhookAuthType,
  WebhookTestView,
} from '../views/approval.view';

export class ApprovalLogEntryResponse implements ApprovalLogEntryView {
  @ApiProperty({ format: 'date-time' })
  at: string;

  @ApiProperty({ enum: APPROVAL_LOG_ENTRY_TYPES })
  type: ApprovalLogEntryType;

  @ApiProperty({ type: Number, nullable: true })
  attempt: number | null;

  @ApiProperty({ type: Number, nullable: true })
  httpStatus: number | null;

  @ApiProperty({ type: Number, nullable: true })
  durationMs: number | null;

  @ApiProperty({ type: String, nullable: true })
  error: string | null;

  @ApiProperty({ type: String, nullable: true })
  comment: string | null;

  @ApiProperty({ type: String, nullable: true })
  decidedBy: string | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: "On a reminder's DeliveryAttempt: which reminder it was (1, 2, …)",
  })
  reminder: number | null;
}

export class WebhookAuthenticationTypeResponse {
  @ApiProperty({ enum: WEBHOOK_AUTH_TYPES })
  type: WebhookAuthType;
}

/** The webhook as configured, without any auth value. */
export class WebhookResponse {
  @ApiProperty()
  url: string;

  @ApiProperty({ type: () => WebhookAuthenticationTypeResponse })
  authentication: WebhookAuthenticationTypeResponse;

  @ApiProperty()
  timeoutSeconds: number;

  @ApiProperty()
  maxRetryAttempts: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'While the approval awaits its decision, the webhook is sent again every this many seconds',
  })
  remindAfterSeconds: number | null;
}

export class ApprovalResponse implements ApprovalView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'The same as id' })
  approvalId: string;

  @ApiProperty({ format: 'uuid' })
  callbackId: string;

  @ApiProperty()
  executionId: string;

  @ApiProperty()
  stepId: string;

  @ApiProperty()
  agentName: string;

  @ApiProperty()
  message: string;

  @ApiProperty({ enum: APPROVAL_STATUSES })
  status: ApprovalStatus;

  @ApiProperty({ type: () => WebhookResponse })
  webhook: WebhookResponse;

  @ApiProperty({ type: String, nullable: true })
  comment: string | null;

  @ApiProperty({ type: String, nullable: true })
  decidedBy: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The JSON object the decider handed back with the callback (at most 64 KiB)',
  })
  output: Record<string, unknown> | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The page where a person approves or denies (a signed link; it answers while the approval is Pending or ' +
      'AwaitingDecision); null when the service runs with DECISION_PAGE=false',
  })
  decisionPageUrl: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  decisionDueAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  decidedAt: string | null;

  @ApiProperty({ description: 'Callbacks refused for a wrong token' })
  rejectedCallbacks: number;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;

  @ApiProperty({ type: () => [ApprovalLogEntryResponse] })
  log: ApprovalLogEntryResponse[];
}

export class ApprovalListItemResponse extends ApprovalResponse implements ApprovalListItemView {
  @ApiProperty({ description: 'Only the latest entries of the log are shown; GET /v1/approvals/{id} has them all' })
  logTruncated: boolean;
}

export class ApprovalCreatedResponse implements ApprovalCreatedView {
  @ApiProperty({ format: 'uuid' })
  approvalId: string;

  @ApiProperty({ format: 'uuid' })
  callbackId: string;

  @ApiProperty({ enum: APPROVAL_STATUSES })
  status: ApprovalStatus;
}

export class RedeliveryResponse implements RedeliveryView {
  @ApiProperty({ format: 'uuid' })
  approvalId: string;

  @ApiProperty()
  attempt: number;
}

export class WebhookTestResponse implements WebhookTestView {
  @ApiProperty()
  delivered: boolean;

  @ApiProperty({ type: Number, nullable: true })
  httpStatus: number | null;

  @ApiProperty()
  durationMs: number;

  @ApiProperty({ type: String, nullable: true })
  error: string | null;
}

export class CallbackDecisionResponse implements CallbackDecisionView {
  @ApiProperty({ format: 'uuid' })
  callbackId: string;

  @ApiProperty({ format: 'uuid' })
  approvalId: string;

  @ApiProperty()
  executionId: string;

  @ApiProperty({ enum: APPROVAL_STATUSES })
  status: ApprovalStatus;

  @ApiProperty({ format: 'date-time' })
  decidedAt: string;
}
