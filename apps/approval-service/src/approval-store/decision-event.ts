import type { ApprovalDecisionEvent } from '@app/contracts/payloads';
import type { ApprovalOutcome } from '@app/contracts/views';

/** What a decision event says: an approval's final move, or a refused request that has no approval. */
export interface DecisionFacts {
  id: string;
  tenantId: string;
  executionId: string;
  stepId: string;
  status: ApprovalOutcome;
  comment: string | null;
  decidedBy: string | null;
  output: Record<string, unknown> | null;
  decidedAt: Date;
}

/** The one place that shapes the decision event the agent runtime receives (and the outbox keeps). */
export function decisionEvent(decided: DecisionFacts): ApprovalDecisionEvent {
  return {
    approvalId: decided.id,
    tenantId: decided.tenantId,
    executionId: decided.executionId,
    stepId: decided.stepId,
    outcome: decided.status,
    comment: decided.comment,
    decidedBy: decided.decidedBy,
    output: decided.output,
    decidedAt: decided.decidedAt.toISOString(),
  };
}
