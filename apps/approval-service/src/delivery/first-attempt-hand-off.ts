import { Injectable, Logger } from '@nestjs/common';
import { OutageRider } from '@app/database';
import { settlesWithin } from '@app/outbound';
import { FairShare, InjectFairShare } from '@app/queue';
import { ApprovalEnv } from '../approval-env';
import { AttemptsInFlight } from './attempts-in-flight';
import { DELIVERY_QUEUE, deliverySlots, inlineHoldId } from './delivery.jobs';
import { DeliveryProducer } from './delivery.producer';
import { DeliveryService } from './delivery.service';
import { AttemptView, HandedOffAttempts } from './handed-off-attempts';
import { LingeringReceivers } from './lingering-receivers';
import { DeliveryTarget, receiverOf } from './receivers';
import { TenantCounts } from './tenant-counts';

/** How long intake stays with a first attempt it sends itself before letting it go on alone. */
const INLINE_WAIT_MS = 200;
/**
 * A tenant whose receiver lingers has at most this many first attempts sent by intake at a time here; its next
 * take turns in the fair share. Such a receiver would otherwise hold every lane of intake while other tenants'
 * requests wait; a quick one frees its lane at once, so a lone tenant's first attempts stay inline
 * (docs/approval-performance.md).
 */
const INLINE_PER_LINGERING_TENANT = 2;

/** Intake's hand-off of an approval's first attempt: sent from here when it may be, else queued. */
@Injectable()
export class FirstAttemptHandOff {
  private readonly logger = new Logger(FirstAttemptHandOff.name);
  private readonly inlineBound: number;
  private readonly strandedAfterMs: number;
  /** Tenants with a first attempt that outlasted INLINE_WAIT_MS here. */
  private readonly slowTenants = new TenantCounts();
  private readonly inlineAttempts = new TenantCounts();

  constructor(
    env: ApprovalEnv,
    private readonly delivery: DeliveryService,
    private readonly producer: DeliveryProducer,
    private readonly handOffs: HandedOffAttempts,
    private readonly outage: OutageRider,
    private readonly lingering: LingeringReceivers,
    @InjectFairShare(DELIVERY_QUEUE) private readonly fairShare: FairShare,
    private readonly inFlight: AttemptsInFlight,
  ) {
    const { slots, reserved } = deliverySlots(env.DELIVERY_SLOTS);
    this.inlineBound = slots - reserved;
    this.strandedAfterMs = env.DELIVERY_STRANDED_AFTER_MS;
  }

  /**
   * An approval this process has just created is sent from here while its tenant has no slow attempt here
   * (nor, when its receiver lingers, INLINE_PER_LINGERING_TENANT in flight) and may take a delivery slot now,
   * it and its receiver (the fair share's hold): intake stays with it for at most INLINE_WAIT_MS (most
   * receivers answer by then, and the work in flight stays bounded by intake's concurrency), then lets it go
   * on alone. Otherwise the attempt waits for its tenant's turn in the delivery queue's fair share, as it does
   * when `inline` is false, or after a shutdown signal.
   */
  async handOff(approval: DeliveryTarget & { id: string }, fresh?: AttemptView, { inline = true } = {}): Promise<void> {
    if (fresh && inline && (await this.sendHere(fresh))) return;
    if (fresh) this.handOffs.keep(fresh);
    await this.outage.ride(() => this.producer.attempt(approval.id, 1, approval, 0, !fresh));
  }

  /** False when the attempt was not started here, or failed before it was sent or recorded. */
  private async sendHere(view: AttemptView): Promise<boolean> {
    const { tenantId } = view;
    if (!this.inFlight.mayStart || this.slowTenants.has(tenantId) || this.atLingeringBound(tenantId)) return false;
    if (this.delivery.running >= this.inlineBound) return false;
    // Counted before the hold is asked for: the requests intake takes together reach here together.
    this.inlineAttempts.add(tenantId);
    const holdId = inlineHoldId(view.id);
    const held = await this.fairShare.hold(tenantId, holdId, receiverOf(view.webhookUrl));
    // A shutdown signal may have come while the hold was asked for: the attempt goes to the queue instead.
    if (!held || !this.inFlight.mayStart) {
      this.inlineAttempts.remove(tenantId);
      if (held) void this.fairShare.release(holdId).catch(() => undefined);
      return false;
    }
    const sent = this.inFlight.track(this.delivery.sendKnown(view)).finally(() => {
      this.inlineAttempts.remove(tenantId);
      this.fairShare
        .release(holdId)
        .catch((error: Error) =>
          this.logger.warn({ approvalId: view.id, error: error.message }, 'slot not given back'),
        );
    });
    const settled = await settlesWithin(sent, INLINE_WAIT_MS);
    if (settled === 'pending') await this.goOnAlone(view, sent);
    return settled !== 'failed';
  }

  private atLingeringBound(tenantId: string): boolean {
    return this.lingering.has(tenantId) && this.inlineAttempts.count(tenantId) >= INLINE_PER_LINGERING_TENANT;
  }

  /**
   * A first attempt intake no longer waits for. Until it ends, its tenant's next first attempts go to the
   * queue; a delayed job sends it after its deadline (and DELIVERY_STRANDED_AFTER_MS) should this process
   * die first, and is withdrawn once it has ended here. Resolves once that job is written: intake's request
   * is done only then, since a process that died before would leave the attempt with nothing to send it again.
   */
  private async goOnAlone(view: AttemptView, sent: Promise<void>): Promise<void> {
    this.slowTenants.add(view.tenantId);
    const safetyNet = this.outage
      .ride(() => this.producer.attempt(view.id, 1, view, view.timeoutSeconds * 1000 + this.strandedAfterMs))
      .catch((error: Error) =>
        this.logger.warn(
          { approvalId: view.id, error: error.message },
          'no delayed job for a first attempt: should this worker die, it is not sent again',
        ),
      );
    // Counted in flight until the delayed job is withdrawn: a shutdown waits for that too.
    void this.inFlight.track(
      sent
        .then(
          () => safetyNet.then(() => this.producer.withdraw(view.id, 1)),
          (error: Error) =>
            this.logger.warn({ approvalId: view.id, error: error.message }, 'first attempt left to its delayed job'),
        )
        .catch(() => undefined)
        .finally(() => this.slowTenants.remove(view.tenantId)),
    );
    await safetyNet;
  }
}
