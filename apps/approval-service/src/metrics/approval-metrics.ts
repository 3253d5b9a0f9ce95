import { Injectable } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Histogram } from 'prom-client';

export const DELIVERY_ATTEMPTS = 'approval_delivery_attempts_total';
export const DELIVERY_DURATION = 'approval_delivery_attempt_duration_seconds';
export const DECISIONS = 'approval_decisions_total';
export const CALLBACK_DECISION = 'approval_callback_decision_seconds';

/** How an attempt went; a fixed set, so a receiver's answers cannot grow the label's values. */
export type DeliveryOutcome = 'delivered' | 'http_4xx' | 'http_5xx' | 'http_other' | 'timeout' | 'unreachable';

/** The approval-service's own counters: one call per event, from delivery, callbacks and the decision relay. */
@Injectable()
export class ApprovalMetrics {
  constructor(
    @InjectMetric(DELIVERY_ATTEMPTS) private readonly attempts: Counter<'outcome'>,
    @InjectMetric(DELIVERY_DURATION) private readonly attemptDuration: Histogram<'outcome'>,
    @InjectMetric(DECISIONS) private readonly decisions: Counter<'outcome'>,
    @InjectMetric(CALLBACK_DECISION) private readonly callbackToDecision: Histogram<'outcome'>,
  ) {}

  deliveryAttempted(result: {
    delivered: boolean;
    httpStatus: number | null;
    durationMs: number;
    error: string | null;
  }): void {
    const outcome = deliveryOutcome(result);
    this.attempts.inc({ outcome });
    this.attemptDuration.observe({ outcome }, result.durationMs / 1000);
  }

  /** A decision committed (any outcome: Approved, Denied, Cancelled, DeliveryFailed, InvalidRequest, …). */
  decided(outcome: string): void {
    this.decisions.inc({ outcome });
  }

  /** Starts the clock of a callback; the returned function stops it once its decision is published. */
  callbackReceived(): (outcome: string) => void {
    const stop = this.callbackToDecision.startTimer();
    return (outcome) => void stop({ outcome });
  }
}

export function deliveryOutcome(result: {
  delivered: boolean;
  httpStatus: number | null;
  error: string | null;
}): DeliveryOutcome {
  if (result.delivered) return 'delivered';
  if (result.httpStatus !== null)
    return result.httpStatus >= 500 ? 'http_5xx' : result.httpStatus >= 400 ? 'http_4xx' : 'http_other';
  // WebhookSender's wording for an attempt its deadline ended.
  return result.error?.startsWith('No answer within') ? 'timeout' : 'unreachable';
}
