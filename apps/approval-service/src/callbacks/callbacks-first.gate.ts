import { Injectable } from '@nestjs/common';
import { PriorityGate } from '@app/queue';

/** The longest a new request waits for callbacks in hand, so a stream of callbacks cannot starve intake. */
export const INTAKE_MAX_WAIT_MS = 1000;

/**
 * Callbacks go first in a process that also takes new requests: a decision resumes a paused run, a new
 * request only starts one more delivery. Under load this keeps callback → decision short at the same
 * throughput (docs/approval-performance.md).
 */
@Injectable()
export class CallbacksFirstGate extends PriorityGate {
  constructor() {
    super({ maxWaitMs: INTAKE_MAX_WAIT_MS });
  }
}
