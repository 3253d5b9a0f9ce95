import type { ApprovalView } from '@app/contracts';
import type { ApprovalLogEntity } from '../approval-store/approval-log.entity';
import type { ApprovalEntity } from '../approval-store/approval.entity';

/** An approval as the API shows it: never the callback token nor any webhook auth value. */
export function approvalResponse(
  approval: ApprovalEntity,
  log: ApprovalLogEntity[],
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
      url: approval.webhookUrl,
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
