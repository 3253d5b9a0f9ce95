import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SecretCipher } from '@app/crypto';
import type { WebhookAuthenticationDto } from '@app/contracts';
import { ApprovalEntity } from '../approvals/approval.entity';
import { ApprovalsRepository } from '../approvals/approvals.repository';
import { decisionEvent } from '../approvals/decision-event';
import { DecisionRelay } from '../outbox/decision-relay';
import { DeliveryProducer } from './delivery.producer';
import { delayAfterFailedAttemptMs, hasRetryLeft } from './retry-schedule';
import { AttemptResult, WebhookSender } from './webhook-sender';

export const CALLBACK_PATH = '/v1/AgentExecutionWebhookApproval/callback';

/** One delivery attempt of an approval, and what follows it: delivered, a retry, or DeliveryFailed. */
@Injectable()
export class DeliveryService {
  private readonly callbackUrl: string;

  constructor(
    config: ConfigService,
    private readonly repository: ApprovalsRepository,
    private readonly sender: WebhookSender,
    private readonly producer: DeliveryProducer,
    private readonly cipher: SecretCipher,
    private readonly relay: DecisionRelay,
  ) {
    this.callbackUrl = `${config.getOrThrow<string>('PUBLIC_BASE_URL').replace(/\/+$/, '')}${CALLBACK_PATH}`;
  }

  async attempt(approvalId: string, attempt: number): Promise<void> {
    const approval = await this.repository.approvals.findOneBy({ id: approvalId });
    // A decision (even one that arrived while an earlier attempt was in flight) or a cancel stops delivery.
    if (!approval || approval.status !== 'Pending') return;
    const result = await this.outcomeOf(approval, attempt);
    if (!result) return;
    if (result.delivered) return this.delivered(approval);
    if (hasRetryLeft(attempt, approval.maxRetryAttempts)) return this.producer.attempt(approvalId, attempt + 1, delayAfterFailedAttemptMs(attempt));
    return this.failed(approval);
  }

  /** Sends the attempt, or, when a crashed worker already sent and logged it, reads what happened. */
  private async outcomeOf(approval: ApprovalEntity, attempt: number): Promise<AttemptResult | null> {
    const logged = await this.repository.attemptLogged(approval.id, attempt);
    if (logged) return { delivered: isSuccess(logged.httpStatus), httpStatus: logged.httpStatus, durationMs: logged.durationMs ?? 0, error: logged.error };
    const sealed = await this.repository.sealedToken(approval.id);
    if (!sealed) return null;
    const result = await this.sender.send({
      url: approval.webhookUrl,
      messageId: approval.id,
      authentication: this.authentication(approval),
      timeoutSeconds: approval.timeoutSeconds,
      body: {
        callbackId: approval.callbackId,
        callbackToken: this.cipher.decrypt(sealed),
        agentName: approval.agentName,
        message: approval.message,
        stepInput: approval.stepInput ?? null,
        previousResults: approval.previousResults ?? null,
        executionId: approval.executionId,
        stepId: approval.stepId,
        approvalId: approval.id,
        callbackUrl: this.callbackUrl,
        requestedAt: approval.createdAt.toISOString(),
      },
    });
    const first = await this.repository.logAttemptOnce(approval.id, { type: 'DeliveryAttempt', attempt, ...result });
    return first ? result : null;
  }

  private async delivered(approval: ApprovalEntity): Promise<void> {
    await this.repository.transaction(async (manager) => {
      if (await this.repository.move(manager, approval.id, 'AwaitingDecision')) await this.repository.append(manager, approval.id, { type: 'Delivered' });
    });
  }

  private async failed(approval: ApprovalEntity): Promise<void> {
    const won = await this.repository.transaction(async (manager) => {
      const moved = await this.repository.move(manager, approval.id, 'DeliveryFailed', { decided: true });
      if (!moved) return false;
      await this.repository.append(manager, approval.id, { type: 'DeliveryFailed', error: `No attempt succeeded (${approval.maxRetryAttempts + 1} in all)` });
      await this.repository.enqueueDecision(manager, decisionEvent(moved, 'DeliveryFailed'));
      return true;
    });
    if (won) this.relay.kick();
  }

  private authentication(approval: ApprovalEntity): WebhookAuthenticationDto {
    const values = approval.authEncrypted ? JSON.parse(this.cipher.decrypt(approval.authEncrypted)) : {};
    return { type: approval.authType, ...values };
  }
}

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}
