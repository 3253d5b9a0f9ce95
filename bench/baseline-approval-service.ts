/**
 * The baseline's service half for `bench/approvals.ts`: the same work as the approval-service with bare
 * Bull jobs and bare HTTP posts and no database. Takes request jobs and POSTs the webhook; takes
 * callback POSTs and adds the decision job (jobId = executionId).
 */
import Bull from 'bull';
import { Agent, createServer, request } from 'node:http';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.QUEUE_PREFIX ?? 'bench-base';
const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

const requests = new Bull<{ executionId: string; url: string }>('requests', REDIS_URL, { prefix });
const decisions = new Bull<{ executionId: string }>('decisions', REDIS_URL, { prefix });

void requests.process(50, (job) => post(job.data.url, { executionId: job.data.executionId }));

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    if (req.url?.startsWith('/health')) return void res.writeHead(200).end();
    const { executionId } = JSON.parse(body);
    decisions.add({ executionId }, { jobId: executionId }).then(
      () => res.writeHead(200).end(),
      () => res.writeHead(500).end(),
    );
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');

process.on('SIGTERM', () => {
  server.close();
  void Promise.all([requests.close(), decisions.close()]).then(() => process.exit(0));
});

function post(url: string, body: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: keepAlive, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
