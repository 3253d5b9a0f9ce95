import { serveRequests } from '../../src/common/serve-requests';

/**
 * A ProcessLane's process for tests: answers each request with itself and its pid, fails, or spins as asked;
 * `outOfTurn` says something a process may not (as one whose parser a file took over might) before it answers.
 */
serveRequests((request: { echo?: string; fail?: string; spinMs?: number; outOfTurn?: unknown }) => {
  if (request.outOfTurn !== undefined) process.send?.(request.outOfTurn);
  if (request.fail) throw Object.assign(new Error(request.fail), { name: 'AskedToFail' });
  for (const until = Date.now() + (request.spinMs ?? 0); Date.now() < until;);
  return { echo: request.echo, pid: process.pid };
});
