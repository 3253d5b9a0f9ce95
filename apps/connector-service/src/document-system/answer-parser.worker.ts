import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { AnswerShape, readAnswer } from './answer-shapes';

/**
 * A parser thread: for each `{id, chunks, shape, maxItems}` answers `{id, answer}` (what `readAnswer` keeps).
 * One answer at a time; the pool ends the thread when one takes too long or too much memory.
 */
const NICE: number = (workerData as { nice?: number } | null)?.nice ?? 10;
try {
  // Linux: a thread has its own nice value, so a hostile page's parse yields the CPU to the event loop.
  setPriority(NICE);
} catch {
  // Not permitted here: the thread runs at normal priority.
}

interface ParseRequest {
  id: number;
  chunks: Uint8Array[];
  shape: AnswerShape;
  maxItems: number;
}

const port = parentPort!;
port.on('message', ({ id, chunks, shape, maxItems }: ParseRequest) => {
  const text = Buffer.concat(chunks).toString('utf8');
  port.postMessage({ id, answer: readAnswer(text, shape, maxItems) });
});
