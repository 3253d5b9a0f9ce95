import { resolve } from 'node:path';
import { LaneFailures, ProcessLane, ProcessLaneOptions } from '../../src/common/process-lane';

export type EchoRequest = { echo?: string; fail?: string; spinMs?: number; outOfTurn?: unknown };
export type Echo = { echo?: string; pid: number };

/** Each failure reads as its kind, so a test can tell them apart. */
export const ECHO_FAILURES: LaneFailures = {
  timedOut: (ms) => new Error(`timed out after ${ms} ms`),
  outOfMemory: (mb) => new Error(`out of memory (${mb} MB)`),
  reported: (message, name) => new Error(`${name}: ${message}`),
  stopped: (reason) => new Error(`stopped (${reason})`),
  killed: () => new Error('killed'),
  notStarted: (reason) => new Error(`not started: ${reason}`),
  closed: () => new Error('closed'),
};

/** A lane whose process is test/support/echo-lane.ts. */
export function echoLane(options: Partial<ProcessLaneOptions> = {}): ProcessLane<EchoRequest, Echo> {
  return new ProcessLane<EchoRequest, Echo>({
    entry: resolve(__dirname, 'echo-lane.ts'),
    timeoutMs: 10_000,
    maxHeapMb: 64,
    nice: 0,
    failures: ECHO_FAILURES,
    ...options,
  });
}
