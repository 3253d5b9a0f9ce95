import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SecretCipher } from '@app/crypto';
import type { WebhookAuthenticationDto } from '@app/contracts';
import { ApprovalsRepository, DeliveryView } from '../approvals/approvals.repository';
import { DecisionRelay } from '../outbox/decision-relay';
import { DeliveryProducer } from './delivery.producer';
import { delayAfterFailedAttemptMs, hasRetryLeft } from './retry-schedule';
import { WebhookSender } from './webhook-sender';

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

  /** `known` is the approval as just inserted, which spares the read. */
  async attempt(approvalId: string, attempt: number, known?: DeliveryView): Promise<void> {
    const approval = known ?? (await this.repository.deliveryView(approvalId, attempt));
    // A decision (even one that arrived while an earlier attempt was in flight) or a cancel stops delivery.
    if (!approval || approval.status !== 'Pending') return;
    const result = await this.outcomeOf(approval, attempt);
    if (!result) return;
    if (result.delivered) return;
    if (hasRetryLeft(attempt, approval.maxRetryAttempts)) return this.producer.attempt(approvalId, attempt + 1, delayAfterFailedAttemptMs(attempt));
    const decided = await this.repository.decide(approvalId, 'DeliveryFailed', {
      type: 'DeliveryFailed',
      error: `No attempt succeeded (${approval.maxRetryAttempts + 1} in all)`,
    });
    if (decided) await this.relay.publish(decided.event);
  }

  /**
   * Sends the attempt and records it (moving to AwaitingDecision on a 2xx), or, when a crashed worker
   * already sent and logged it, goes on from what was logged. Null when another worker owns the attempt.
   */
  private async outcomeOf(approval: DeliveryView, attempt: number): Promise<{ delivered: boolean } | null> {
    if (approval.loggedAttempt) {
      const delivered = isSuccess(approval.loggedAttempt.httpStatus);
      if (delivered) await this.repository.markDelivered(approval.id);
      return { delivered };
    }
    if (!approval.callbackTokenSealed) return null;
    const result = await this.sender.send({
      url: approval.webhookUrl,
      messageId: approval.id,
      authentication: approval.inHand?.authentication ?? this.authentication(approval),
      timeoutSeconds: approval.timeoutSeconds,
      body: {
        callbackId: approval.callbackId,
        callbackToken: approval.inHand?.callbackToken ?? this.cipher.decrypt(approval.callbackTokenSealed),
        agentName: approval.agentName,
        message: approval.message,
        stepInput: approval.stepInput ?? null,
        previousResults: approval.previousResults ?? null,
        executionId: approval.executionId,
        stepId: approval.stepId,
        approvalId: approval.id,
        callbackUrl: this.callbackUrl,
        requestedAt: new Date(approval.createdAt).toISOString(),
      },
    });
    return (await this.repository.recordAttempt(approval.id, attempt, result)) ? result : null;
  }

  private authentication(approval: DeliveryView): WebhookAuthenticationDto {
    const values = approval.authEncrypted ? JSON.parse(this.cipher.decrypt(approval.authEncrypted)) : {};
    return { type: approval.authType, ...values };
  }
}

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}
