import { Injectable } from '@nestjs/common';
import type { DeliveryView } from '../approvals/approvals.repository';

/** A hand-off not taken within this time went to another worker process, which reads the approval itself. */
const KEEP_MS = 60_000;

/**
 * First attempts handed from intake to the delivery queue, as just created in this process: the worker
 * that takes the job here sends with the secrets in hand instead of reading and decrypting them.
 */
@Injectable()
export class HandedOffAttempts {
  private readonly views = new Map<string, { view: DeliveryView; at: number }>();

  keep(view: DeliveryView): void {
    this.views.set(view.id, { view, at: Date.now() });
    const oldest = Date.now() - KEEP_MS;
    for (const [id, entry] of this.views) {
      if (entry.at >= oldest) break;
      this.views.delete(id);
    }
  }

  take(approvalId: string): DeliveryView | undefined {
    const entry = this.views.get(approvalId);
    this.views.delete(approvalId);
    return entry?.view;
  }
}
