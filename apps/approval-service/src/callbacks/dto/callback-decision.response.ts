import type { CallbackDecisionView } from '@app/contracts/views';
import type { ApprovalEntity } from '../../approval-store/approval.entity';

export function callbackDecisionResponse(
  approval: Pick<ApprovalEntity, 'id' | 'callbackId' | 'executionId' | 'status' | 'decidedAt'>,
): CallbackDecisionView {
  return {
    callbackId: approval.callbackId,
    approvalId: approval.id,
    executionId: approval.executionId,
    status: approval.status,
    decidedAt: new Date(approval.decidedAt!).toISOString(),
  };
}
