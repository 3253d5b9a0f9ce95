import { Injectable } from '@nestjs/common';
import { constantTimeEqual, sha256Hex } from '@app/crypto';
import type { CallbackDecisionView } from '@app/contracts/views';
import { ApprovalException } from '../approval-store/approval.exception';
import { BatchedApprovals, Decided } from '../approval-store/batched-approvals';
import { ApprovalMetrics } from '../metrics/approval-metrics';
import { DecisionRelay } from '../outbox/decision-relay';
import { ApprovalCallbackDto } from './callback.dto';
import { callbackDecisionResponse } from './dto/callback-decision.response';
import { CallbackRejections } from './callback-rejections';
import { CALLBACK_ID_SHAPE } from './callback-throttlers';
import { CallbackCredential, RecentCallbackCredentials } from './recent-callback-credentials';

/** What a person decided: the callback's fields after its credentials. */
export type Decision = Pick<ApprovalCallbackDto, 'status' | 'comment' | 'decidedBy' | 'output'>;

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
    private readonly rejections: CallbackRejections,
    private readonly metrics: ApprovalMetrics,
  ) {}

  async decide(input: ApprovalCallbackDto): Promise<CallbackDecisionView> {
    const decisionPublished = this.metrics.callbackReceived();
    const callbackId = input.callbackId.toLowerCase(); // a UUID, in capitals or not; stored in small letters
    const credential = CALLBACK_ID_SHAPE.test(callbackId) ? await this.credential(callbackId) : null;
    if (!credential) throw ApprovalException.callbackNotFound();
    if (!constantTimeEqual(sha256Hex(input.callbackToken), credential.callbackTokenHash)) {
      await this.rejections.record(credential.id, 'callbackToken did not match');
      throw ApprovalException.callbackTokenInvalid();
    }
    const decided = await this.record(credential.id, callbackId, input);
    if (decided) {
      decisionPublished(decided.event.outcome);
      // Past its deadline the approval timed out instead: the callback came too late.
      if (decided.status !== input.status) throw ApprovalException.notPending(decided.status);
      return callbackDecisionResponse(decided);
    }
    const current = await this.approvals.forCallback(callbackId);
    if (!current) throw ApprovalException.callbackNotFound();
    if (current.status === input.status) return callbackDecisionResponse(current);
    throw ApprovalException.notPending(current.status);
  }

  /**
   * A person's decision on an open approval, with its log entry and its decision event (published now, or by
   * the relay once Redis is back): the callback's and the decision page's. Null when the approval was no longer open.
   */
  async record(approvalId: string, callbackId: string, decision: Decision): Promise<Decided | null> {
    const decided = await this.approvals.decide(
      approvalId,
      decision.status,
      { type: 'Decided', comment: decision.comment ?? null, decidedBy: decision.decidedBy ?? null },
      decision.output ?? null,
    );
    if (!decided) return null;
    this.recentCredentials.forget(callbackId);
    if (!decided.published) await this.relay.publishWithin(decided.event);
    return decided;
  }

  /** What a callback's token is checked against: from memory when this process created the approval lately. */
  private async credential(callbackId: string): Promise<CallbackCredential | null> {
    return this.recentCredentials.get(callbackId) ?? (await this.approvals.forCallback(callbackId));
  }
}
