import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LevelWithSilent } from 'pino';

/**
 * Reads that come again and again without a person behind each one: health probes, and what the web
 * console polls while it waits (a sync run's progress, a data source's status, its runs).
 */
export const QUIET_READS: readonly RegExp[] = [
  /^\/health(\/|$)/,
  /^\/v1\/sync-runs\/[^/]+$/,
  /^\/v1\/data-sources\/[^/]+$/,
  /^\/v1\/data-sources\/[^/]+\/sync-runs$/,
];

/** The level of a request's log line: failures as errors, successful quiet reads at debug, the rest at info. */
export function requestLogLevel(quietReads: readonly RegExp[]) {
  return (req: IncomingMessage, res: ServerResponse, error?: Error): LevelWithSilent => {
    if (error || res.statusCode >= 500) return 'error';
    if (
      res.statusCode < 400 &&
      (req.method === 'GET' || req.method === 'HEAD') &&
      quietReads.some((route) => route.test(pathOf(req)))
    )
      return 'debug';
    return 'info';
  };
}

function pathOf(req: IncomingMessage): string {
  return ((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '').split('?')[0];
}
