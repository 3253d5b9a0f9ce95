import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApprovalRequestDto, MESSAGE_WARN_AT, WebhookAuthenticationDto } from '@app/contracts';
import { randomToken, SecretCipher, sha256Hex } from '@app/crypto';
import { DeliveryProducer } from '../delivery/delivery.producer';
import { WebhookUrlPolicy } from '../delivery/webhook-url-policy';
import { DecisionRelay } from '../outbox/decision-relay';
import { OPEN_STATUSES } from './approval-state';
import { ApprovalEntity } from './approval.entity';
import { ApprovalException } from './approval.exception';
import { ApprovalsRepository } from './approvals.repository';
import { decisionEvent } from './decision-event';

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
  async request(tenantId: string, input: ApprovalRequestDto): Promise<{ approval: ApprovalEntity; created: boolean }> {
    this.policy.assertAllowed(input.webhook.url);
    const message = input.webhook.message ?? '';
    if (message.length >= MESSAGE_WARN_AT) this.logger.warn({ executionId: input.executionId, length: message.length }, 'approval message is 500 characters or more');
    const token = randomToken(32);
    const created = await this.repository.transaction(async (manager) => {
      const [row]: ApprovalEntity[] = await manager.query(
        `INSERT INTO approval.approvals ("tenantId", "executionId", "stepId", "agentName", message, "stepInput", "previousResults", "webhookUrl",
           "authType", "authEncrypted", "timeoutSeconds", "maxRetryAttempts", "callbackId", "callbackTokenHash", "callbackTokenSealed", status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'Pending')
         ON CONFLICT ("tenantId", "executionId", "stepId") DO NOTHING RETURNING id`,
        [
          tenantId,
          input.executionId,
          input.stepId,
          input.agentName,
          message,
          JSON.stringify(input.stepInput ?? null),
          JSON.stringify(input.previousResults ?? null),
          input.webhook.url,
          input.webhook.authentication.type,
          this.sealAuth(input.webhook.authentication),
          input.webhook.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
          input.webhook.maxRetryAttempts ?? DEFAULT_MAX_RETRY_ATTEMPTS,
          randomUUID(),
          sha256Hex(token),
          this.cipher.encrypt(token),
        ],
      );
      if (row) await this.repository.append(manager, row.id, { type: 'Requested' });
      return row?.id as string | undefined;
    });
    if (created) await this.delivery.attempt(created, 1);
    const approval = await this.repository.approvals.findOneByOrFail(
      created ? { id: created } : { tenantId, executionId: input.executionId, stepId: input.stepId },
    );
    return { approval, created: Boolean(created) };
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
    const approval = await this.get(tenantId, id);
    const won = await this.repository.transaction(async (manager) => {
      const moved = await this.repository.move(manager, id, 'Cancelled', { decided: true, comment: `Cancelled by ${by}` });
      if (!moved) return false;
      await this.repository.append(manager, id, { type: 'Cancelled', comment: moved.comment });
      await this.repository.enqueueDecision(manager, decisionEvent(moved, 'Cancelled'));
      return true;
    });
    if (!won) throw ApprovalException.notPending((await this.get(tenantId, id)).status);
    this.relay.kick();
    return this.get(tenantId, approval.id);
  }

  isOpen(approval: ApprovalEntity): boolean {
    return OPEN_STATUSES.includes(approval.status);
  }

  private sealAuth(auth: WebhookAuthenticationDto): string | null {
    const { type, ...values } = auth;
    return type === 'None' ? null : this.cipher.encrypt(JSON.stringify(values));
  }
}
