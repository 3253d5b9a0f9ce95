import { spawn, spawnSync } from 'node:child_process';
import { createSocket, RemoteInfo, Socket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
/** A loopback address of its own, so the fake name server's port 53 is nobody else's. */
const NAME_SERVER = `127.77.${1 + Math.floor(Math.random() * 250)}.1`;
const PUBLIC_ADDRESS = '93.184.216.34';

/** `unshare` and its arguments: a private mount namespace where /etc/resolv.conf and /etc/hosts are `dir`'s. */
const withNameFilesOf = (dir: string) => [
  ...['-m', '--propagation', 'private', 'sh', '-c'],
  'mount --bind "$0" /etc/resolv.conf && mount --bind "$1" /etc/hosts && shift && exec "$@"',
  join(dir, 'resolv.conf'),
  join(dir, 'hosts'),
];

/**
 * Whether a process can be run with name files of its own (root on Linux), where the fake name server below is
 * the only one its glibc and c-ares know. Elsewhere the spec is skipped.
 */
function canRunWithOwnNameFiles(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  return spawnSync('unshare', [...withNameFilesOf('/etc'), 'true'], { timeout: 10_000 }).status === 0;
}

/** A name server that never answers names under slow.test nor slowhost…, and answers the others at once. */
class FakeNameServer {
  readonly asked: string[] = [];
  private socket?: Socket;

  async start(): Promise<this> {
    this.socket = createSocket('udp4').on('message', (query, peer) => this.answer(query, peer));
    await new Promise<void>((ready, fail) => this.socket!.once('error', fail).bind(53, NAME_SERVER, ready));
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((done) => this.socket?.close(() => done()));
  }

  private answer(query: Buffer, peer: RemoteInfo): void {
    const labels: string[] = [];
    let at = 12;
    for (; query[at] > 0; at += query[at] + 1) labels.push(query.subarray(at + 1, at + 1 + query[at]).toString());
    const name = labels.join('.').toLowerCase();
    const type = query.readUInt16BE(at + 1);
    this.asked.push(name);
    if (name.endsWith('slow.test') || name.startsWith('slowhost')) return;
    const records: Record<string, string> = { 'fast.test': PUBLIC_ADDRESS, 'private.test': '10.0.0.7' };
    const known = name in records;
    const addresses = known && type === 1 ? [records[name]] : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2); // an answer, recursion available; NXDOMAIN for the others
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(addresses.length, 6);
    const answers = addresses.map((address) => {
      const record = Buffer.alloc(16);
      record.writeUInt16BE(0xc00c, 0); // the question's name
      record.writeUInt16BE(1, 2);
      record.writeUInt16BE(1, 4);
      record.writeUInt32BE(60, 6);
      record.writeUInt16BE(4, 10);
      Buffer.from(address.split('.').map(Number)).copy(record, 12);
      return record;
    });
    this.socket!.send(Buffer.concat([header, query.subarray(12, at + 5), ...answers]), peer.port, peer.address);
  }
}

/**
 * In a process whose only name server is the fake one: 8 lookups of `hanging` names (# is 0 … 7: one tenant's
 * webhook hosts), then, 200 ms later, another tenant's lookup, the database driver's plain dns.lookup and a file read, each given
 * at most 2 s; then the policy's answers for a private name, an unknown one, one /etc/hosts lists, and localhost.
 */
const childScript = (hanging: string, smallFile: string) => `
  const { lookup: plainLookup } = require('node:dns');
  const { readFile } = require('node:fs/promises');
  const { OutboundUrlPolicy } = require('@app/outbound');
  const policy = new OutboundUrlPolicy({ allowInsecure: false, allowPrivate: false });
  const timed = (work) => {
    const started = Date.now();
    const limit = new Promise((done) => setTimeout(() => done({ pendingAfterMs: 2000 }), 2000));
    return Promise.race([work.then((outcome) => ({ ms: Date.now() - started, ...outcome })), limit]);
  };
  const answer = (done) => (error, address) => done({ error: error && (error.code || error.name), address });
  const lookup = (name, options) => new Promise((done) => policy.lookup(name, options, answer(done)));
  for (let i = 0; i < 8; i++) lookup(${JSON.stringify(hanging)}.replace('#', i), { all: true });
  setTimeout(async () => {
    const [fast, plain, read] = await Promise.all([
      timed(lookup('fast.test', { all: true })),
      timed(new Promise((done) => plainLookup('fast.test', answer(done)))),
      timed(readFile(${JSON.stringify(smallFile)}, 'utf8').then((text) => ({ text }))),
    ]);
    const refused = await timed(lookup('private.test', {}));
    const unknown = await timed(lookup('no-such-name.test', { family: 4 }));
    const listed = await timed(lookup('docs.internal.test', { all: true }));
    const local = await timed(lookup('localhost', {}));
    process.stdout.write(JSON.stringify({ fast, plain, read, refused, unknown, listed, local }) + '\\n');
  }, 200);`;

/** Runs `script` where /etc/resolv.conf and /etc/hosts are those of `dir`. */
function runWithNameFilesOf(dir: string, script: string): Promise<Record<string, Record<string, unknown>>> {
  const node = [process.execPath, '-r', 'ts-node/register/transpile-only', '-r', './scripts/register-paths.js'];
  const child = spawn('unshare', [...withNameFilesOf(dir), ...node], {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
  });
  child.stdin.end(script);
  let out = '';
  let err = '';
  // Its figures in, the child is ended: its exit would wait for the lookups still holding a thread.
  child.stdout.on('data', (chunk) => (out += chunk).endsWith('\n') && child.kill('SIGKILL'));
  child.stderr.on('data', (chunk) => (err += chunk));
  return new Promise((done, fail) =>
    child.once('exit', (code) =>
      out.endsWith('\n') ? done(JSON.parse(out)) : fail(new Error(`exit ${code}: ${err}`)),
    ),
  );
}

const ownNameFiles = canRunWithOwnNameFiles();
const describeWhereIsolated = ownNameFiles ? describe : describe.skip;
if (!ownNameFiles) console.warn('slow-dns-fairness skipped: needs root on Linux (unshare -m and mount --bind)');

describeWhereIsolated('OutboundUrlPolicy.lookup beside a name server that never answers', () => {
  let server: FakeNameServer;
  let dir: string;

  beforeAll(async () => {
    server = await new FakeNameServer().start();
    dir = mkdtempSync(join(tmpdir(), 'slow-dns-'));
    writeFileSync(join(dir, 'resolv.conf'), `nameserver ${NAME_SERVER}\noptions timeout:3 attempts:1\n`);
    writeFileSync(join(dir, 'hosts'), `127.0.0.1 localhost\n${PUBLIC_ADDRESS} docs.internal.test # not in DNS\n`);
    writeFileSync(join(dir, 'small.txt'), 'a small file');
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const expectNoOneElseWaits = (seen: Record<string, Record<string, unknown>>) => {
    expect(seen.fast).toMatchObject({ error: null, address: [{ address: PUBLIC_ADDRESS, family: 4 }] });
    expect(seen.fast.ms).toBeLessThan(300);
    expect(seen.plain).toMatchObject({ error: null, address: PUBLIC_ADDRESS });
    expect(seen.plain.ms).toBeLessThan(300);
    expect(seen.read).toMatchObject({ text: 'a small file' });
    expect(seen.read.ms).toBeLessThan(300);
    // Every rule of the policy still holds: a non-public answer refused, an unknown name ENOTFOUND,
    // /etc/hosts read (the name server knows no docs.internal.test), localhost refused.
    expect(seen.refused).toMatchObject({ error: 'OutboundAddressRefused' });
    expect(seen.unknown).toMatchObject({ error: 'ENOTFOUND' });
    expect(seen.listed).toMatchObject({ error: null, address: [{ address: PUBLIC_ADDRESS, family: 4 }] });
    expect(seen.local).toMatchObject({ error: 'OutboundAddressRefused' });
  };

  it("answers another tenant's lookup, the database's and a file read at once while one tenant's 8 names hang", async () => {
    const seen = await runWithNameFilesOf(dir, childScript('tenant-a-#.slow.test', join(dir, 'small.txt')));
    // The child's resolver is this server: it was asked for a name that hangs.
    expect(server.asked).toContain('tenant-a-0.slow.test');
    expectNoOneElseWaits(seen);
  }, 30_000);

  it('lets single-label names (getaddrinfo, for their search domains) hold one thread at most; /etc/hosts names wait on none', async () => {
    const seen = await runWithNameFilesOf(dir, childScript('slowhost#', join(dir, 'small.txt')));
    expect(server.asked).toContain('slowhost0');
    expectNoOneElseWaits(seen);
  }, 30_000);
});
