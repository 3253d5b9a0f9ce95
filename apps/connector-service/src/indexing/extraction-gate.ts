import { Injectable } from '@nestjs/common';
import { PriorityGate } from '@app/queue';

/** The longest a text extraction waits for a busy sync in the same process, so a sync that never pauses cannot starve it. */
export const EXTRACTION_MAX_WAIT_MS = 10_000;

/**
 * Lets text extraction (CPU) give way to sync steps (I/O) in the same worker process: a run ends as fast
 * as its downloads allow, and its text is extracted once the process has no sync step in hand. A step
 * often follows another at once (the queue hands over the next job), so the gate opens 250 ms after the last.
 */
@Injectable()
export class ExtractionGate extends PriorityGate {
  constructor() {
    super({ maxWaitMs: EXTRACTION_MAX_WAIT_MS, settleMs: 250 });
  }
}
