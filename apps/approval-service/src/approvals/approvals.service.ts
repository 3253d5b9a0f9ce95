import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApprovalRequestDto, MESSAGE_WARN_AT, WebhookAuthenticationDto } from '@app/contracts';
import { randomToken, SecretCipher, sha256Hex } from '@app/crypto';
import { DeliveryProducer } from '../delivery/delivery.producer';
import { WebhookUrlPolicy } from '../delivery/webhook-url-policy';
import { DecisionRelay } from '../outbox/decision-relay';
import { ApprovalEntity } from './approval.entity';
import { ApprovalException } from './approval.exception';
import { ApprovalsRepository, DeliveryView } from './approvals.repository';

export type RequestedApproval = Pick<ApprovalEntity, 'id' | 'callbackId' | 'status'>;

/** A request's approval; `fresh` is set when this request created it, as its first attempt sees it. */
export interface RequestOutcome {
  approval: RequestedApproval;
  created: boolean;
  fresh?: DeliveryView;
}

export const DEFAULT_TIMEOUT_SECONDS = 300;
export const DEFAULT_MAX_RETRY_ATTEMPTS = 3;

@Injectable()
export class ApprovalsService {
  private readonly logger = new Logger(ApprovalsService.name);

  constructor(
    private readonly repository: ApprovalsRepository,
    private readonly policy: WebhookUrlPolicy,
    private readonly cipher: SecretCipher,
    private readonly delivery: DeliveryProducer,
    private readonly relay: DecisionRelay,
  ) {}

  /**
   * Pauses the run: stores the approval and queues its first delivery. (executionId, stepId) is
   * idempotent per tenant: a repeat returns the existing approval and sends nothing new.
   */
  async request(tenantId: string, input: ApprovalRequestDto, options: { queueFirstAttempt?: boolean } = {}): Promise<RequestOutcome> {
    this.policy.assertAllowed(input.webhook.url);
    const message = input.webhook.message ?? '';
    if (message.length >= MESSAGE_WARN_AT) this.logger.warn({ executionId: input.executionId, length: message.length }, 'approval message is 500 characters or more');
    const token = randomToken(32);
    const created = await this.repository.insertRequested({
      tenantId,
      executionId: input.executionId,
      stepId: input.stepId,
      agentName: input.agentName,
      message,
      stepInput: input.stepInput,
      previousResults: input.previousResults,
      webhookUrl: input.webhook.url,
      authType: input.webhook.authentication.type,
      authEncrypted: this.sealAuth(input.webhook.authentication),
      timeoutSeconds: input.webhook.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      maxRetryAttempts: input.webhook.maxRetryAttempts ?? DEFAULT_MAX_RETRY_ATTEMPTS,
      callbackId: randomUUID(),
      callbackTokenHash: sha256Hex(token),
      callbackTokenSealed: this.cipher.encrypt(token),
    });
    if (created) {
      if (options.queueFirstAttempt !== false) await this.delivery.attempt(created.id, 1);
      const fresh = { ...created, inHand: { callbackToken: token, authentication: input.webhook.authentication } };
      return { approval: { id: created.id, callbackId: created.callbackId, status: created.status }, created: true, fresh };
    }
    const existing = await this.repository.approvals.findOneByOrFail({ tenantId, executionId: input.executionId, stepId: input.stepId });
    return { approval: { id: existing.id, callbackId: existing.callbackId, status: existing.status }, created: false };
  }

  async get(tenantId: string, id: string): Promise<ApprovalEntity> {
    const approval = await this.repository.approvals.findOneBy({ id, tenantId });
    if (!approval) throw ApprovalException.notFound();
    return approval;
  }

  list(tenantId: string, filter: { executionId?: string; status?: string }): Promise<ApprovalEntity[]> {
    return this.repository.approvals.find({
      where: { tenantId, ...(filter.executionId ? { executionId: filter.executionId } : {}), ...(filter.status ? { status: filter.status as ApprovalEntity['status'] } : {}) },
      order: { createdAt: 'DESC' },
      take: 200,
    });
  }

  /** Pending or AwaitingDecision → Cancelled, with its decision event. */
  async cancel(tenantId: string, id: string, by: string): Promise<ApprovalEntity> {
    await this.get(tenantId, id);
    const decided = await this.repository.decide(id, 'Cancelled', { type: 'Cancelled', comment: `Cancelled by ${by}` });
    if (!decided) throw ApprovalException.notPending((await this.get(tenantId, id)).status);
    await this.relay.publish(decided.event);
    return this.get(tenantId, id);
  }

  private sealAuth(auth: WebhookAuthenticationDto): string | null {
    const { type, ...values } = auth;
    return type === 'None' ? null : this.cipher.encrypt(JSON.stringify(values));
  }
}
