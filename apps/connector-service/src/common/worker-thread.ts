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
