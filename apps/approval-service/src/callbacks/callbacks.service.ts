import { Injectable } from '@nestjs/common';
import { constantTimeEqual, sha256Hex } from '@app/crypto';
import { ApprovalEntity } from '../approvals/approval.entity';
import { ApprovalException } from '../approvals/approval.exception';
import { ApprovalsRepository } from '../approvals/approvals.repository';
import { decisionEvent } from '../approvals/decision-event';
import { DecisionRelay } from '../outbox/decision-relay';
import { ApprovalCallbackDto } from './callback.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The receiver's decision. Like a task token: an unknown id (404) and a wrong token (401) are distinct;
 * the first decision wins through a conditional update; repeating the same decision is answered the
 * same way; any other later decision gets 409.
 */
@Injectable()
export class CallbacksService {
  constructor(
    private readonly repository: ApprovalsRepository,
    private readonly relay: DecisionRelay,
  ) {}

  async decide(input: ApprovalCallbackDto) {
    const approval = UUID.test(input.callbackId) ? await this.repository.approvals.findOneBy({ callbackId: input.callbackId }) : null;
    if (!approval) throw ApprovalException.callbackNotFound();
    if (!constantTimeEqual(sha256Hex(input.callbackToken), approval.callbackTokenHash)) {
      await this.repository.transaction((manager) => this.repository.append(manager, approval.id, { type: 'CallbackRejected', error: 'callbackToken did not match' }));
      throw ApprovalException.callbackTokenInvalid();
    }
    const comment = input.comment ?? null;
    const won = await this.repository.transaction(async (manager) => {
      const moved = await this.repository.move(manager, approval.id, input.status, { decided: true, comment });
      if (!moved) return null;
      await this.repository.append(manager, approval.id, { type: 'Decided', comment: comment ?? `${input.status}` });
      await this.repository.enqueueDecision(manager, decisionEvent(moved, input.status));
      return moved;
    });
    if (won) {
      this.relay.kick();
      return response(won);
    }
    const current = await this.repository.approvals.findOneByOrFail({ id: approval.id });
    if (current.status === input.status) return response(current);
    throw ApprovalException.notPending(current.status);
  }
}

function response(approval: Pick<ApprovalEntity, 'id' | 'callbackId' | 'executionId' | 'status' | 'decidedAt'>) {
  return {
    callbackId: approval.callbackId,
    approvalId: approval.id,
    executionId: approval.executionId,
    status: approval.status,
    decidedAt: new Date(approval.decidedAt!).toISOString(),
  };
}
