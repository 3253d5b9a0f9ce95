import { Injectable } from '@nestjs/common';
import type { Job } from 'bull';
import { ApprovalEnv } from '../approval-env';
import { SecretCipher } from '@app/crypto';
import type { WebhookAuthenticationDto } from '@app/contracts/payloads';
import type { DeliveryView } from '../approval-store/approval-rows';
import { ApprovalsRepository } from '../approval-store/approvals.repository';
import { BatchedApprovals } from '../approval-store/batched-approvals';
import { OutageRider } from '@app/database';
import { ApprovalMetrics } from '../metrics/approval-metrics';
import { DecisionPageLinks } from '../decision-pages/decision-page-links';
import { DecisionRelay } from '../outbox/decision-relay';
import { FairShare, InjectFairShare } from '@app/queue';
import { DeliveryAttemptJob, DELIVERY_QUEUE, inlineHoldId } from './delivery.jobs';
import { DeliveryProducer } from './delivery.producer';
import { AttemptView, HandedOffAttempts, SecretsInHand } from './handed-off-attempts';
import { delayAfterFailedAttemptMs, hasRetryLeft } from './retry-schedule';
import { LingeringReceivers } from './lingering-receivers';
import { AttemptResult, WebhookSender } from './webhook-sender';

export const CALLBACK_PATH = '/v1/AgentExecutionWebhookApproval/callback';

/** The error logged for an attempt whose job Bull failed because each worker sending it stopped. */
export const DELIVERY_STALLED_OUT = 'The attempt was not sent: the worker sending it stopped, each time it was tried';

/** The receiver says the endpoint is gone for good: no retry can succeed. */
const GONE = 410;

type AttemptOutcome = { delivered: boolean; httpStatus: number | null };
type AttemptOptions = {
  known?: AttemptView | null;
  inHand?: SecretsInHand;
  redelivery?: boolean;
  reminder?: number;
  /** Its job stalled out: logged failed, not sent. */
  stalledOut?: boolean;
};

/** One delivery attempt of an approval, and what follows it: delivered, a retry, or DeliveryFailed. */
@Injectable()
export class DeliveryService {
  private readonly callbackUrl: string;
  private readonly decisionPages: DecisionPageLinks;
  private attemptsRunning = 0;

  constructor(
    env: ApprovalEnv,
    private readonly repository: ApprovalsRepository,
    private readonly approvals: BatchedApprovals,
    private readonly sender: WebhookSender,
    private readonly producer: DeliveryProducer,
    private readonly cipher: SecretCipher,
    private readonly relay: DecisionRelay,
    private readonly handOffs: HandedOffAttempts,
    private readonly outage: OutageRider,
    private readonly metrics: ApprovalMetrics,
    private readonly lingering: LingeringReceivers,
    @InjectFairShare(DELIVERY_QUEUE) private readonly fairShare: FairShare,
  ) {
    this.callbackUrl = `${env.PUBLIC_BASE_URL.replace(/\/+$/, '')}${CALLBACK_PATH}`;
    this.decisionPages = new DecisionPageLinks(env, cipher);
  }

  /**
   * A queued attempt: its slot is its tenant's already (the fair share admitted it). A first attempt asked for
   * again while intake is sending it (a repeated request in flight beside the first) waits until intake's
   * attempt has ended or its process has gone (its hold lapses): then it finds the attempt logged, or sends it.
   */
  async run(job: DeliveryAttemptJob, queued?: Job): Promise<void> {
    if (queued && job.again && (await this.fairShare.isHeld(inlineHoldId(job.approvalId))))
      return this.fairShare.putBack(queued, AGAIN_RECHECK_MS);
    this.attemptsRunning++;
    try {
      // Intake's copy spares decrypting the secrets, not reading the approval: a Cancel may have come since.
      const inHand = job.attempt === 1 ? this.handOffs.take(job.approvalId)?.inHand : undefined;
      await this.attempt(job.approvalId, job.attempt, {
        inHand,
        redelivery: job.redelivery === true,
        reminder: job.reminder,
      });
    } finally {
      this.attemptsRunning--;
    }
  }

  /**
   * An attempt whose job Bull failed because each worker sending it stopped (a job that ends every worker that
   * runs it): logged as a failed attempt, then it goes on as one would (a retry, or DeliveryFailed). Every
   * process hears it; the first to log the attempt owns it, the others find it logged.
   */
  async stalledOut({ approvalId, attempt, redelivery, reminder }: DeliveryAttemptJob): Promise<void> {
    await this.attempt(approvalId, attempt, { redelivery: redelivery === true, reminder, stalledOut: true });
  }

  /** This process's attempts in flight (queued or intake's): intake sends none itself past its unreserved slots. */
  get running(): number {
    return this.attemptsRunning;
  }

  /** An approval's first attempt as just inserted, sent from intake (FirstAttemptHandOff). */
  async sendKnown(view: AttemptView): Promise<void> {
    this.attemptsRunning++;
    try {
      await this.attempt(view.id, 1, { known: view });
    } finally {
      this.attemptsRunning--;
    }
  }

  /**
   * `known` is the approval as just inserted or read, which spares the read; `inHand`, its secrets as
   * intake had them. A redelivery is one attempt to an approval awaiting its decision: whatever its
   * answer, nothing follows and the status stays. A reminder is a redelivery that says which one it is.
   */
  private async attempt(
    approvalId: string,
    attempt: number,
    { known, inHand, redelivery = false, reminder, stalledOut = false }: AttemptOptions,
  ): Promise<void> {
    const approval = known ?? withSecrets(await this.view(approvalId, attempt), inHand);
    // A decision (even one that arrived while an earlier attempt was in flight) or a cancel stops delivery.
    if (!approval || approval.status !== (redelivery ? 'AwaitingDecision' : 'Pending')) return;
    if (redelivery && approval.overdue) return; // every decision would be refused: it is timed out
    if (reminder && approval.remindersStopped) return; // claimed before another reminder's 410 Gone ended them
    const result = stalledOut
      ? await this.stalledOutcome(approval, attempt, reminder)
      : await this.outcomeOf(approval, attempt, reminder);
    if (!result || result.delivered || redelivery) return;
    if (result.httpStatus === GONE)
      return this.fail(approvalId, `The receiver answered 410 Gone to attempt ${attempt}: delivery ended`);
    if (hasRetryLeft(attempt, approval.maxRetryAttempts)) {
      return this.outage.ride(() =>
        this.producer.attempt(approvalId, attempt + 1, approval, delayAfterFailedAttemptMs(attempt)),
      );
    }
    return this.fail(approvalId, `No attempt succeeded (${approval.maxRetryAttempts + 1} in all)`);
  }

  private async fail(approvalId: string, reason: string): Promise<void> {
    const decided = await this.outage.ride(() =>
      this.approvals.decide(approvalId, 'DeliveryFailed', { type: 'DeliveryFailed', error: reason }),
    );
    if (decided) await this.relay.publish(decided.event);
  }

  /**
   * Sends the attempt and records it (moving to AwaitingDecision on a 2xx), or, when it is logged
   * already (a crashed worker sent it, or the database went away before confirming our record), goes
   * on from what was logged. Null when there is nothing more to do.
   */
  private async outcomeOf(approval: AttemptView, attempt: number, reminder?: number): Promise<AttemptOutcome | null> {
    if (approval.loggedAttempt) return this.fromLog(approval.id, approval.loggedAttempt);
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
        decisionPageUrl: this.decisionPages.url(approval.id),
        requestedAt: new Date(approval.createdAt).toISOString(),
        ...(reminder ? { reminder } : {}),
      },
    });
    this.metrics.deliveryAttempted(result);
    this.lingering.answered(approval.tenantId, result.durationMs);
    return this.recorded(approval.id, attempt, result, reminder);
  }

  /** A stalled-out attempt's outcome: logged as failed with DELIVERY_STALLED_OUT, or as it was logged already. */
  private async stalledOutcome(
    approval: AttemptView,
    attempt: number,
    reminder?: number,
  ): Promise<AttemptOutcome | null> {
    if (approval.loggedAttempt) return this.fromLog(approval.id, approval.loggedAttempt);
    const result = { delivered: false, httpStatus: null, durationMs: 0, error: DELIVERY_STALLED_OUT };
    return this.recorded(approval.id, attempt, result, reminder);
  }

  /** Logs the attempt's result; when it is logged already (another process logged it), goes on from the log. */
  private async recorded(
    approvalId: string,
    attempt: number,
    result: AttemptResult,
    reminder?: number,
  ): Promise<AttemptOutcome | null> {
    if (await this.outage.ride(() => this.approvals.recordAttempt(approvalId, attempt, { ...result, reminder })))
      return result;
    const logged = (await this.view(approvalId, attempt))?.loggedAttempt;
    return logged ? this.fromLog(approvalId, logged) : null;
  }

  private async fromLog(
    approvalId: string,
    logged: NonNullable<DeliveryView['loggedAttempt']>,
  ): Promise<AttemptOutcome> {
    const delivered = isSuccess(logged.httpStatus);
    if (delivered) await this.outage.ride(() => this.repository.markDelivered(approvalId));
    return { delivered, httpStatus: logged.httpStatus };
  }

  private view(approvalId: string, attempt: number): Promise<DeliveryView | null> {
    return this.outage.ride(() => this.repository.deliveryView(approvalId, attempt));
  }

  private authentication(approval: DeliveryView): WebhookAuthenticationDto {
    const values = approval.authEncrypted ? JSON.parse(this.cipher.decrypt(approval.authEncrypted)) : {};
    return { type: approval.authType, ...values };
  }
}

function withSecrets(view: DeliveryView | null, inHand: SecretsInHand | undefined): AttemptView | null {
  return view && { ...view, inHand };
}

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/** How long a first attempt asked for again waits before it looks again whether intake's is still in flight. */
const AGAIN_RECHECK_MS = 1000;
