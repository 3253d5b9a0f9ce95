import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { readText, type ReadTextRequest } from './read-text';

/**
 * An extraction worker thread: says `{ready}` once loaded, then for each request (one at a time) answers
 * `{text, pages}` or `{error, name}`. The pool ends the thread when a file takes too long or too much memory.
 */

// On Linux a thread has its own nice value: the pool's default (10) yields most of the CPU to the event loop
// (sync runs, API requests, search) and to the database. Not 19: at that weight (15 against 1024) a machine
// busy with other work starves extraction almost entirely; at 10 it still gets about a tenth.
const BACKGROUND_NICE: number = (workerData as { nice?: number } | null)?.nice ?? 10;
try {
  setPriority(BACKGROUND_NICE);
} catch {
  // Not permitted here: extraction simply runs at normal priority.
}

const port = parentPort!;
port.on('message', (request: ReadTextRequest) => {
  readText(request).then(
    ({ text, pages }) => port.postMessage({ text, pages }),
    (error: Error) => port.postMessage({ error: String(error?.message ?? error), name: error?.name }),
  );
});
port.postMessage({ ready: true });
