import { serveRequests } from '../../src/common/serve-requests';

/** A ProcessLane's process for tests: answers each request with itself and its pid, fails, or spins as asked. */
serveRequests((request: { echo?: string; fail?: string; spinMs?: number }) => {
  if (request.fail) throw Object.assign(new Error(request.fail), { name: 'AskedToFail' });
  for (const until = Date.now() + (request.spinMs ?? 0); Date.now() < until;);
  return { echo: request.echo, pid: process.pid };
});
