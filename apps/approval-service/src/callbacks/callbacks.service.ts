import { Injectable } from '@nestjs/common';
import { constantTimeEqual, sha256Hex } from '@app/crypto';
import type { CallbackDecisionView } from '@app/contracts/views';
import { ApprovalException } from '../approval-store/approval.exception';
import { BatchedApprovals } from '../approval-store/batched-approvals';
import { ApprovalMetrics } from '../metrics/approval-metrics';
import { DecisionRelay } from '../outbox/decision-relay';
import { ApprovalCallbackDto } from './callback.dto';
import { callbackDecisionResponse } from './dto/callback-decision.response';
import { CallbackRejectionsRepository } from './callback-rejections.repository';
import { CALLBACK_ID_SHAPE } from './callback-throttlers';
import { CallbackCredential, RecentCallbackCredentials } from './recent-callback-credentials';

/**
 * The receiver's decision. Like a task token: an unknown id (404) and a wrong token (401) are distinct;
 * the first decision wins through a conditional update; repeating the same decision is answered the
 * same way; any other later decision gets 409.
 */
@Injectable()
export class CallbacksService {
  constructor(
    private readonly approvals: BatchedApprovals,
    private readonly recentCredentials: RecentCallbackCredentials,
    private readonly relay: DecisionRelay,
    private readonly rejections: CallbackRejectionsRepository,
    private readonly metrics: ApprovalMetrics,
  ) {}

  async decide(input: ApprovalCallbackDto): Promise<CallbackDecisionView> {
    const decisionPublished = this.metrics.callbackReceived();
    const credential = CALLBACK_ID_SHAPE.test(input.callbackId) ? await this.credential(input.callbackId) : null;
    if (!credential) throw ApprovalException.callbackNotFound();
    if (!constantTimeEqual(sha256Hex(input.callbackToken), credential.callbackTokenHash)) {
      await this.rejections.record(credential.id, 'callbackToken did not match');
      throw ApprovalException.callbackTokenInvalid();
    }
    const decided = await this.approvals.decide(credential.id, input.status, {
      type: 'Decided',
      comment: input.comment ?? null,
      decidedBy: input.decidedBy ?? null,
    });
    if (decided) {
      this.recentCredentials.forget(input.callbackId);
      await this.relay.publish(decided.event);
      decisionPublished(decided.event.outcome);
      return callbackDecisionResponse(decided);
    }
    const current = await this.approvals.forCallback(input.callbackId);
    if (!current) throw ApprovalException.callbackNotFound();
    if (current.status === input.status) return callbackDecisionResponse(current);
    throw ApprovalException.notPending(current.status);
  }

  /** What a callback's token is checked against: from memory when this process created the approval lately. */
  private async credential(callbackId: string): Promise<CallbackCredential | null> {
    return this.recentCredentials.get(callbackId) ?? (await this.approvals.forCallback(callbackId));
  }
}
