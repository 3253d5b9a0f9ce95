import type { ApprovalDecisionEvent, ApprovalOutcome } from '@app/contracts';
import type { ApprovalEntity } from './approval.entity';

export function decisionEvent(
  approval: Pick<ApprovalEntity, 'id' | 'tenantId' | 'executionId' | 'stepId' | 'comment' | 'decidedAt'>,
  outcome: ApprovalOutcome,
): ApprovalDecisionEvent {
  return {
    approvalId: approval.id,
    tenantId: approval.tenantId,
    executionId: approval.executionId,
    stepId: approval.stepId,
    outcome,
    comment: approval.comment ?? null,
    decidedAt: new Date(approval.decidedAt ?? Date.now()).toISOString(),
  };
}
