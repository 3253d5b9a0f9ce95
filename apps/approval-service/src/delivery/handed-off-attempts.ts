import { Injectable } from '@nestjs/common';
import type { WebhookAuthenticationDto } from '@app/contracts/payloads';
import type { DeliveryView } from '../approval-store/approval-rows';

/** An approval as a delivery attempt sees it; with the secrets in the clear only when this process has just created it. */
export type AttemptView = DeliveryView & { inHand?: SecretsInHand };

/** Spares decrypting what intake had in hand a moment ago. Kept in memory only, never stored. */
export interface SecretsInHand {
  callbackToken: string;
  authentication: WebhookAuthenticationDto;
}

/** A hand-off not taken within this time went to another worker process, which reads the approval itself. */
const KEEP_MS = 60_000;

/**
 * First attempts handed from intake to the delivery queue, as just created in this process: the worker
 * that takes the job here sends with the secrets in hand instead of reading and decrypting them.
 */
@Injectable()
export class HandedOffAttempts {
  private readonly views = new Map<string, { view: AttemptView; at: number }>();

  keep(view: AttemptView): void {
    this.views.set(view.id, { view, at: Date.now() });
    const oldest = Date.now() - KEEP_MS;
    for (const [id, entry] of this.views) {
      if (entry.at >= oldest) break;
      this.views.delete(id);
    }
  }

  take(approvalId: string): AttemptView | undefined {
    const entry = this.views.get(approvalId);
    this.views.delete(approvalId);
    return entry?.view;
  }
}
