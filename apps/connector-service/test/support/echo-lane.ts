import { serveRequests } from '../../src/common/serve-requests';

/** A ProcessLane's process for tests: answers each request with itself and its pid, or fails as asked. */
serveRequests((request: { echo?: string; fail?: string }) => {
  if (request.fail) throw Object.assign(new Error(request.fail), { name: 'AskedToFail' });
  return { echo: request.echo, pid: process.pid };
});
