import type { ApprovalView } from '@app/contracts/views';
import type { ApprovalLogEntity } from '../../approval-store/approval-log.entity';
import type { ApprovalEntity } from '../../approval-store/approval.entity';
import { ADMIN_ROLE, AGENT_RUNTIME_ROLE, Principal } from '@app/auth';

/**
 * An approval as `reader` may see it: never the callback token nor any webhook auth value, and the
 * webhook URL (its path and query often carry a secret) whole only to admin and agent-runtime.
 */
export function approvalResponse(
  approval: ApprovalEntity,
  log: ApprovalLogEntity[],
  reader: Principal,
  decisionPageUrl: string | null,
): ApprovalView {
  return {
    id: approval.id,
    approvalId: approval.id,
    callbackId: approval.callbackId,
    executionId: approval.executionId,
    stepId: approval.stepId,
    agentName: approval.agentName,
    message: approval.message,
    status: approval.status,
    webhook: {
      url: mayReadWebhookUrl(reader) ? approval.webhookUrl : originOf(approval.webhookUrl),
      authentication: { type: approval.authType },
      timeoutSeconds: approval.timeoutSeconds,
      maxRetryAttempts: approval.maxRetryAttempts,
      remindAfterSeconds: approval.remindAfterSeconds,
    },
    comment: approval.comment,
    decidedBy: approval.decidedBy,
    output: approval.output,
    decisionPageUrl,
    decisionDueAt: approval.decisionDueAt?.toISOString() ?? null,
    decidedAt: approval.decidedAt?.toISOString() ?? null,
    rejectedCallbacks: approval.rejectedCallbacks,
    createdAt: approval.createdAt.toISOString(),
    updatedAt: approval.updatedAt.toISOString(),
    log: log.map((entry) => ({
      at: entry.at.toISOString(),
      type: entry.type,
      attempt: entry.attempt,
      httpStatus: entry.httpStatus,
      durationMs: entry.durationMs,
      error: entry.error,
      comment: entry.comment,
      decidedBy: entry.decidedBy,
      reminder: entry.reminder,
    })),
  };
}

const mayReadWebhookUrl = (reader: Principal) =>
  reader.roles.includes(ADMIN_ROLE) || reader.roles.includes(AGENT_RUNTIME_ROLE);

const originOf = (url: string) => (URL.canParse(url) ? new URL(url).origin : '');
