import { Worker } from 'node:worker_threads';

/**
 * A document system whose every listing is about `megabytes` MiB of JSON that is costly to parse (two workgroups,
 * or no children, beside hundreds of thousands of small objects), under the 16 MiB bound. It serves from a
 * thread of its own, so the cost of sending 16 MiB pages does not land on the event loop under test.
 * With `megabytes` 0 it is a plain, small document system.
 */
export interface HeavyDocumentSystem {
  url: string;
  /** Listing requests answered so far. */
  listings(): number;
  stop(): Promise<void>;
}

export async function startHeavyDocumentSystem(megabytes = 15.5): Promise<HeavyDocumentSystem> {
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(SERVER, { eval: true, workerData: { megabytes, counter } });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    listings: () => Atomics.load(counter, 0),
    stop: async () => void (await worker.terminate()),
  };
}

// The document system stands for a remote one: a heavy one's thread runs at the lowest priority (Linux), so
// sending its pages takes as little CPU as can be from the process under test.
const SERVER = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.megabytes > 0) try { require('node:os').setPriority(19); } catch {}
const { createServer } = require('node:http');
const heavy = (items) => {
  const head = '{"items":' + JSON.stringify(items) + ',"nextCursor":null,"junk":[';
  // 5 JSON values in 41 bytes: 15.5 MiB holds 1.98 million, just under what the connector parses (MAX_ANSWER_VALUES).
  const one = '{"k":"abcdefghijklmn","n":12345,"t":[1]},';
  const count = Math.max(0, Math.floor((workerData.megabytes * 1024 * 1024 - head.length - 20) / one.length));
  return Buffer.from(head + one.repeat(count) + '{"k":"end"}]}');
};
const workgroups = heavy([
  { id: 'w1', name: 'Huge 1', rootFolderId: 'h1' },
  { id: 'w2', name: 'Huge 2', rootFolderId: 'h2' },
]);
const children = heavy([]);
const server = createServer((req, res) => {
  req.resume();
  const path = new URL(req.url, 'http://x').pathname;
  res.on('error', () => undefined);
  if (req.method === 'POST' && path === '/api/v1/session')
    return res.writeHead(200, { 'content-type': 'application/json' }).end('{"sessionToken":"heavy","expiresIn":600}');
  const body = path === '/api/v1/workgroups' ? workgroups : /^\\/api\\/v1\\/folders\\/[^/]+\\/children$/.test(path) ? children : null;
  if (!body) return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
  Atomics.add(workerData.counter, 0, 1);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;
