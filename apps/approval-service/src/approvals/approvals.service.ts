import { Injectable, Logger } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import { randomUUID } from 'node:crypto';
import { ApprovalRequestDto, MESSAGE_WARN_AT, WebhookAuthenticationDto } from '@app/contracts/payloads';
import { randomToken, SecretCipher, sha256Hex } from '@app/crypto';
import { settlesWithin } from '@app/outbound';
import { addedWithin, JOB_ADD_DEADLINE_MS } from '@app/queue';
import { ApprovalEntity } from '../approval-store/approval.entity';
import { ApprovalException } from '../approval-store/approval.exception';
import { OPEN_STATUSES } from '../approval-store/approval-state';
import { ApprovalsRepository } from '../approval-store/approvals.repository';
import { ExtraAttemptsRepository } from '../approval-store/extra-attempts.repository';
import { BatchedApprovals } from '../approval-store/batched-approvals';
import { RecentCallbackCredentials } from '../callbacks/recent-callback-credentials';
import { DecisionTimeoutProducer } from '../decision-timeouts/decision-timeout.producer';
import { DeliveryProducer } from '../delivery/delivery.producer';
import { ReminderProducer } from '../reminders/reminder.producer';
import { nextRound } from '../reminders/reminders.service';
import { AttemptView } from '../delivery/handed-off-attempts';
import { WebhookUrlPolicy } from '../delivery/webhook-url-policy';
import { DecisionRelay } from '../outbox/decision-relay';
import { requestIdentity } from './request-fingerprint';

export type RequestedApproval = Pick<ApprovalEntity, 'id' | 'callbackId' | 'status' | 'tenantId' | 'webhookUrl'>;

/** A request's approval; `fresh` is set when this request created it, as its first attempt sees it. */
export interface RequestOutcome {
  approval: RequestedApproval;
  created: boolean;
  fresh?: AttemptView;
}

/** What a repeat of (executionId, stepId) that differs from the first gets: 409 over REST; on the queue the first stands. */
export type RequestConflictRule = 'refuse' | 'keepFirst';

export interface RequestOptions {
  queueFirstAttempt?: boolean;
  onConflict?: RequestConflictRule;
  /**
   * Runs the Redis writes of a request (a new approval's jobs, a repeat's follow-ups or decision event): the queue
   * holds them through an outage; by default (REST) they get JOB_ADD_DEADLINE_MS, then 503, and the retry adds them.
   */
  holdThroughOutage?: (write: () => Promise<void>) => Promise<void>;
}

export const DEFAULT_TIMEOUT_SECONDS = 300;
export const DEFAULT_MAX_RETRY_ATTEMPTS = 3;

@Injectable()
export class ApprovalsService {
  private readonly logger = new Logger(ApprovalsService.name);
  private readonly minDecisionTimeoutSeconds: number;
  private readonly minRemindAfterSeconds: number;

  constructor(
    env: ApprovalEnv,
    private readonly repository: ApprovalsRepository,
    private readonly approvals: BatchedApprovals,
    private readonly extraAttempts: ExtraAttemptsRepository,
    private readonly recentCredentials: RecentCallbackCredentials,
    private readonly policy: WebhookUrlPolicy,
    private readonly cipher: SecretCipher,
    private readonly delivery: DeliveryProducer,
    private readonly relay: DecisionRelay,
    private readonly deadlines: DecisionTimeoutProducer,
    private readonly reminders: ReminderProducer,
  ) {
    this.minDecisionTimeoutSeconds = env.DECISION_TIMEOUT_MIN_SECONDS;
    this.minRemindAfterSeconds = env.WEBHOOK_REMIND_MIN_SECONDS;
  }

  /**
   * Pauses the run: stores the approval and queues its first delivery. (executionId, stepId) is
   * idempotent per tenant: a repeat returns the existing approval and sends nothing new (while it is open,
   * it makes sure its jobs exist); one whose webhook, agentName or message differ is refused (409) or, on
   * the queue, logged and dropped.
   */
  async request(tenantId: string, input: ApprovalRequestDto, options: RequestOptions = {}): Promise<RequestOutcome> {
    this.policy.assertAllowed(input.webhook.url);
    const decisionTimeoutSeconds = input.decisionTimeoutSeconds ?? null;
    if (decisionTimeoutSeconds !== null && decisionTimeoutSeconds < this.minDecisionTimeoutSeconds) {
      throw ApprovalException.decisionTimeoutTooShort(this.minDecisionTimeoutSeconds);
    }
    const remindAfterSeconds = input.webhook.remindAfterSeconds ?? null;
    if (remindAfterSeconds !== null && remindAfterSeconds < this.minRemindAfterSeconds) {
      throw ApprovalException.remindAfterTooShort(this.minRemindAfterSeconds);
    }
    const message = input.webhook.message ?? '';
    if (message.length >= MESSAGE_WARN_AT)
      this.logger.warn(
        { executionId: input.executionId, length: message.length },
        'approval message is 500 characters or more',
      );
    const identity = requestIdentity(input, {
      timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
      maxRetryAttempts: DEFAULT_MAX_RETRY_ATTEMPTS,
    });
    const token = randomToken(32);
    const callbackTokenHash = sha256Hex(token);
    const created = await this.approvals.insertRequested({
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
      requestFingerprint: this.cipher.fingerprint(identity),
      timeoutSeconds: input.webhook.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      maxRetryAttempts: input.webhook.maxRetryAttempts ?? DEFAULT_MAX_RETRY_ATTEMPTS,
      callbackId: randomUUID(),
      callbackTokenHash,
      callbackTokenSealed: this.cipher.encrypt(token),
      decisionTimeoutSeconds,
      remindAfterSeconds,
    });
    const hold = options.holdThroughOutage ?? ((write) => addedWithin(write()));
    if (created) {
      this.recentCredentials.remember(created.callbackId, { id: created.id, callbackTokenHash });
      // Lost if this process dies right here: the workers' sweep times the approval out, a repeat schedules the rest.
      await hold(async () => {
        if (decisionTimeoutSeconds !== null) await this.deadlines.schedule(created.id, decisionTimeoutSeconds);
        if (remindAfterSeconds !== null)
          await this.reminders.scheduleFirst(created.id, created.createdAt, remindAfterSeconds);
        if (options.queueFirstAttempt !== false) await this.delivery.attempt(created.id, 1, created);
      });
      const fresh = { ...created, inHand: { callbackToken: token, authentication: input.webhook.authentication } };
      return {
        approval: requested(created),
        created: true,
        fresh,
      };
    }
    const existing = await this.repository.findByStep(tenantId, input.executionId, input.stepId);
    if (!this.sameRequest(existing, identity)) this.conflicting(existing, options.onConflict ?? 'refuse');
    if (OPEN_STATUSES.includes(existing.status)) await this.followUpRepeat(existing, options);
    return { approval: requested(existing), created: false };
  }

  async get(tenantId: string, id: string): Promise<ApprovalEntity> {
    const approval = await this.repository.findForTenant(tenantId, id);
    if (!approval) throw ApprovalException.notFound();
    return approval;
  }

  /** Pending or AwaitingDecision → Cancelled, with its decision event. */
  async cancel(tenantId: string, id: string, by: string): Promise<ApprovalEntity> {
    await this.get(tenantId, id);
    const decided = await this.approvals.decide(id, 'Cancelled', { type: 'Cancelled', comment: `Cancelled by ${by}` });
    if (!decided) throw ApprovalException.notPending((await this.get(tenantId, id)).status);
    if (!decided.published) await this.relay.publishWithin(decided.event);
    if (decided.status !== 'Cancelled') throw ApprovalException.notPending(decided.status); // past its deadline: timed out instead
    return this.get(tenantId, id);
  }

  /** One more attempt of an approval awaiting its decision: same body, callback credentials and webhook-id; the status stays. */
  async redeliver(tenantId: string, id: string): Promise<{ approvalId: string; attempt: number }> {
    const approval = await this.get(tenantId, id);
    if (approval.status !== 'AwaitingDecision') throw ApprovalException.notAwaiting(approval.status);
    const attempt = await this.extraAttempts.claimExtraAttempt(id);
    if (attempt === null) {
      const { status, decisionDueAt } = await this.get(tenantId, id);
      if (status !== 'AwaitingDecision') throw ApprovalException.notAwaiting(status);
      // Past its deadline it is timed out, as a callback would find, though no worker may have done it yet.
      if (decisionDueAt && decisionDueAt.getTime() <= Date.now()) throw ApprovalException.notAwaiting('TimedOut');
      throw ApprovalException.notAwaiting(`${status}, its callback token no longer kept`);
    }
    await this.delivery.redeliver(id, attempt, approval);
    return { approvalId: id, attempt };
  }

  /**
   * A repeat of an open approval is answered whatever Redis does (the contract's 200): the queue rides an outage
   * out; over REST the follow-ups get JOB_ADD_DEADLINE_MS, and go on landing (ioredis keeps them) after it.
   */
  private async followUpRepeat(approval: ApprovalEntity, options: RequestOptions): Promise<void> {
    const followUps = () => this.ensureFollowUps(approval, options.queueFirstAttempt !== false);
    if (options.holdThroughOutage) return options.holdThroughOutage(followUps);
    if ((await settlesWithin(followUps(), JOB_ADD_DEADLINE_MS)) !== 'done')
      this.logger.warn({ approvalId: approval.id }, 'repeated request answered; its follow-up jobs not added yet');
  }

  /**
   * A repeat may be the retry of a request whose jobs Redis refused after the insert. Each job has a fixed id:
   * adding it again is a no-op while it waits or runs, and one that ran already finds its work done (a first
   * attempt asked for again waits for intake's own and then finds it logged).
   */
  private async ensureFollowUps(approval: ApprovalEntity, queueFirstAttempt: boolean): Promise<void> {
    const { id, decisionDueAt, remindAfterSeconds } = approval;
    if (decisionDueAt)
      await this.deadlines.schedule(id, Math.max(0, Math.ceil((decisionDueAt.getTime() - Date.now()) / 1000)));
    // The round still ahead, not round 1: an approval that was Pending at round 1 gets no reminder out of turn.
    const round = remindAfterSeconds === null ? null : nextRound(approval, 0, Date.now());
    if (round) await this.reminders.schedule(id, round.round, round.atMs);
    if (queueFirstAttempt && approval.status === 'Pending') await this.delivery.attempt(id, 1, approval, 0, true);
  }

  /** Rows from before fingerprints, or under a retired key, cannot be compared: the first stands. */
  private sameRequest(existing: ApprovalEntity, identity: string): boolean {
    return (
      !existing.requestFingerprint || this.cipher.matchesFingerprint(identity, existing.requestFingerprint) !== false
    );
  }

  private conflicting(existing: ApprovalEntity, rule: RequestConflictRule): void {
    if (rule === 'refuse') throw ApprovalException.conflict();
    this.logger.warn(
      { approvalId: existing.id, executionId: existing.executionId, stepId: existing.stepId },
      'repeated approval request differs from the first: dropped, the first stands',
    );
  }

  private sealAuth(auth: WebhookAuthenticationDto): string | null {
    const { type, ...values } = auth;
    return type === 'None' ? null : this.cipher.encrypt(JSON.stringify(values));
  }
}

/** A request's approval as its caller sees it, with what its first attempt's delivery slot needs. */
function requested({ id, callbackId, status, tenantId, webhookUrl }: RequestedApproval): RequestedApproval {
  return { id, callbackId, status, tenantId, webhookUrl };
}
