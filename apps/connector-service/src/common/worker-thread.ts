import { extname } from 'node:path';
import { ResourceLimits, Worker } from 'node:worker_threads';

/**
 * A worker thread running `entry`. Built (dist), the compiled file; under ts-jest or ts-node the file is
 * TypeScript and a thread has no TypeScript loader of its own: it registers ts-node (transpile only) first.
 */
export function startWorkerThread(
  entry: string,
  resourceLimits: ResourceLimits,
  workerData: Record<string, unknown>,
): Worker {
  if (extname(entry) !== '.ts') return new Worker(entry, { resourceLimits, workerData });
  return new Worker(TYPESCRIPT_ENTRY, {
    eval: true,
    workerData: { ...workerData, entry, tsNode: require.resolve('ts-node') },
    execArgv: [],
    resourceLimits,
  });
}

// Evaluated code resolves modules from the working directory: ts-node is found from here instead.
const TYPESCRIPT_ENTRY = `
const { workerData } = require('node:worker_threads');
require(workerData.tsNode).register({ transpileOnly: true, skipProject: true, compilerOptions: { module: 'commonjs', target: 'es2022', esModuleInterop: true } });
require(workerData.entry);
`;

/**
 * Threads a pool has ended and that may still be running: `terminate()` takes effect only when the thread
 * next runs JS, so one busy in native code (a JSON.parse of megabytes) goes on until that returns. A pool
 * waits for them on close; a process ending with one still running waits for it too (Node stops every
 * thread before it exits), past the few hundred milliseconds a supervisor allows.
 */
export class StoppingThreads {
  private readonly stopping = new Set<Promise<unknown>>();

  /** Ends `worker`; resolves once its thread has stopped. */
  stop(worker: Worker | undefined): Promise<void> {
    if (!worker) return Promise.resolve();
    const stopped = worker.terminate().then(
      () => undefined,
      () => undefined,
    );
    this.stopping.add(stopped);
    void stopped.finally(() => this.stopping.delete(stopped));
    return stopped;
  }

  /** Resolves once every thread ended so far has stopped. */
  async stopped(): Promise<void> {
    await Promise.all(this.stopping);
  }
}
