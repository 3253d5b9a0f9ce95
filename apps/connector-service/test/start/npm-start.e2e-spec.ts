import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually } from '@app/testing';

const ROOT = resolve(__dirname, '../../../..');
const STACK_FRAME = /\n\s+at .+:\d+:\d+\)?\n/;

/**
 * `npm start` on a machine with only Node, as root, from a checkout other users cannot enter: run inside
 * a network namespace (nothing answers on loopback) and a mount namespace in which the real checkout
 * appears under a 0700 directory, with `.data` replaced by an empty directory of the test's own.
 */
describe('npm start with nothing but Node, as root, from a directory only root can enter', () => {
  const missing = ['unshare', 'nsenter', 'ip', 'curl', 'redis-server'].filter(
    (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status !== 0,
  );
  const canRun =
    missing.length === 0 && process.getuid?.() === 0 && spawnSync('unshare', ['-n', '-m', 'true']).status === 0;
  // Where it cannot run, Jest reports these as skipped (and says why), never as passed.
  if (!canRun)
    console.log(`npm start tests skipped: need root, namespaces and ${missing.join(', ') || 'unshare -n -m'}`);
  const itWhenPossible = canRun ? it : it.skip;
  let work: string;
  let tmp: string;
  const started: NpmStart[] = [];

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'npm-start-'));
    chmodSync(work, 0o700);
    tmp = mkdtempSync(join(tmpdir(), 'npm-start-tmp-'));
    chmodSync(tmp, 0o755);
    mkdirSync(join(ROOT, '.data'), { recursive: true });
  });
  afterAll(() => {
    for (const { child } of started) if (child.pid && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
    rmSync(work, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  /** Runs `node scripts/start.js` in fresh namespaces, the checkout at <work>/<name>/checkout. */
  function npmStart(name: string, path = process.env.PATH): NpmStart {
    const checkout = join(work, name, 'checkout');
    const data = join(work, name, 'data');
    for (const dir of [checkout, data]) mkdirSync(dir, { recursive: true });
    const script = [
      'set -e',
      'ip link set lo up',
      `mount --bind ${ROOT} ${checkout}`,
      `mount --bind ${data} ${checkout}/.data`,
      `cd ${checkout}`,
      'echo "start pid $$"',
      `exec env PATH=${path} ${process.execPath} scripts/start.js`,
    ].join('\n');
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
    for (const key of ['REDIS_URL', 'DATABASE_URL', 'AUTH_JWT_SECRET', 'ENCRYPTION_KEY', 'WEBHOOK_SIGNING_SECRET'])
      delete env[key];
    const child = spawn('unshare', ['-n', '-m', '--fork', 'bash', '-c', script], {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: NpmStart = {
      child,
      data,
      output: '',
      closed: false,
      exited: new Promise((done) => child.once('close', (code) => done(code))),
    };
    void run.exited.then(() => (run.closed = true));
    child.stdout!.on('data', (chunk) => (run.output += chunk));
    child.stderr!.on('data', (chunk) => (run.output += chunk));
    started.push(run);
    return run;
  }

  itWhenPossible(
    'starts an embedded Redis and PostgreSQL, comes up ready, and stops everything on Ctrl-C',
    async () => {
      const sut = npmStart('full');

      // About 30 s once built; a fresh clone (CI) first builds everything (npm start does), which is slower.
      await eventually(() => sut.closed || sut.output.includes('Everything is up'), 480_000, 500);
      expect(sut.output).toContain('Everything is up');
      expect(sut.output.match(/^.*embedded Redis.*$/gm)).toHaveLength(1);
      expect(sut.output).toContain(`data in ${tmp}/embedded-postgres-`);
      const nodePid = Number(/start pid (\d+)/.exec(sut.output)![1]);
      expect(readyStatus(nodePid, 3001)).toBe('200');
      expect(readyStatus(nodePid, 3002)).toBe('200');
      // The console signs admin tokens and the simulator's admin API is open: this machine only.
      expect(listeners(nodePid, [3001, 3002, 3003])).toEqual(['127.0.0.1:3001', '127.0.0.1:3002', '127.0.0.1:3003']);
      expect(sut.output).toContain('Listening on 127.0.0.1 only; BIND_ADDRESS=0.0.0.0 npm start opens them');
      // On this machine only, npm start opens /metrics (METRICS_PUBLIC), closed by default elsewhere.
      expect([readyStatus(nodePid, 3001, '/metrics'), readyStatus(nodePid, 3002, '/metrics')]).toEqual(['200', '200']);
      expect(existsSync(join(sut.data, 'redis/appendonlydir'))).toBe(true);

      // Ctrl-C in a terminal signals its whole foreground group (everything but unshare, which stands in for the shell).
      const beforeStop = sut.output.length;
      pressCtrlC(sut.child.pid!);
      expect(await sut.exited).toBe(0);
      expect(sut.output).toMatch(/^Stopped the services, the embedded PostgreSQL, the embedded Redis\.$/m);
      expect(sut.output).not.toMatch(STACK_FRAME);
      // The services stop before PostgreSQL and Redis: no error is logged on the way out.
      expect(sut.output.slice(beforeStop)).not.toMatch(/"level":(50|60)/);
      await eventually(() => !groupAlive(sut.child.pid!), 10_000, 200);
    },
    540_000,
  );

  itWhenPossible(
    'names the PostgreSQL and Redis it uses (no password), keeps its queues under a prefix of its own, logs no route lines',
    async () => {
      const sut = npmStart('stores');
      await eventually(() => sut.closed || sut.output.includes('Everything is up'), 480_000, 500);
      expect(sut.output).toContain('Everything is up');
      const nodePid = Number(/start pid (\d+)/.exec(sut.output)![1]);

      expect(sut.output).toMatch(
        /^ +PostgreSQL +postgres:\/\/postgres@127\.0\.0\.1:54329\/platform \(embedded, data in \S+\)$/m,
      );
      expect(sut.output).toMatch(
        /^ +Redis +redis:\/\/127\.0\.0\.1:6379 \(embedded, data in \.data\/redis\), queue keys under agent-platform: \(QUEUE_PREFIX\)$/m,
      );
      expect(sut.output).not.toContain('postgres:postgres@');
      // Nest's ~230 module and route lines are at debug, not before the banner.
      expect(sut.output).not.toMatch(/RouterExplorer|RoutesResolver|InstanceLoader/);

      // A job: an approval's first delivery. Bull's default prefix (`bull:`) stays empty.
      const token = /export TOKEN=(\S+)/.exec(sut.output)![1];
      const approval = inNamespace(nodePid, [
        'curl',
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '--max-time',
        '10',
        '-H',
        `Authorization: Bearer ${token}`,
        '-H',
        'Content-Type: application/json',
        '-d',
        JSON.stringify({
          executionId: 'e1',
          stepId: 's1',
          agentName: 'a',
          webhook: { url: 'http://127.0.0.1:9/hook', authentication: { type: 'None' } },
        }),
        'http://127.0.0.1:3002/v1/approvals',
      ]);
      expect(approval).toBe('201');
      const keys = (pattern: string) =>
        inNamespace(nodePid, ['redis-cli', '-p', '6379', '--scan', '--pattern', pattern]).split('\n').filter(Boolean);
      await eventually(() => keys('agent-platform:approval-delivery:*').length > 0, 30_000, 500);
      expect(keys('bull:*')).toEqual([]);

      process.kill(nodePid, 'SIGINT');
      expect(await sut.exited).toBe(0);
    },
    540_000,
  );

  itWhenPossible(
    'says in one line how to get Redis when none answers and there is no redis-server to start',
    async () => {
      const onlyNode = join(work, 'only-node-bin');
      mkdirSync(onlyNode);
      symlinkSync(process.execPath, join(onlyNode, 'node'));
      const sut = npmStart('no-redis', onlyNode);

      expect(await sut.exited).toBe(1);
      expect(sut.output).toMatch(
        /^No Redis answered at redis:\/\/127\.0\.0\.1:6379 and none could be started: no redis-server on PATH: install one \(.*apt-get install -y redis-server.*\) or set REDIS_URL.*$/m,
      );
      expect(sut.output).not.toMatch(STACK_FRAME);
      expect(sut.output).toMatch(/^Stopped\.$/m);
    },
    60_000,
  );
});

interface NpmStart {
  child: ChildProcess;
  /** What the checkout's `.data` is in the namespace. */
  data: string;
  output: string;
  closed: boolean;
  exited: Promise<number | null>;
}

/** Runs `command` in the network namespace `pid` lives in; its standard output. */
function inNamespace(pid: number, command: string[]): string {
  return spawnSync('nsenter', [`--net=/proc/${pid}/ns/net`, ...command], { encoding: 'utf8', timeout: 20_000 }).stdout;
}

/** SIGINT to every process of the group `pgid` leads but its leader (unshare), as a terminal's Ctrl-C does. */
function pressCtrlC(pgid: number): void {
  const members = spawnSync('pgrep', ['-g', String(pgid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .map(Number)
    .filter((pid) => pid && pid !== pgid);
  for (const pid of members) process.kill(pid, 'SIGINT');
}

/** The HTTP status of /health/ready on the loopback of the namespace `pid` lives in. */
function readyStatus(pid: number, port: number, path = '/health/ready'): string {
  const curl = spawnSync('nsenter', [
    `--net=/proc/${pid}/ns/net`,
    'curl',
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '--max-time',
    '5',
    `http://127.0.0.1:${port}${path}`,
  ]);
  return curl.stdout.toString();
}

/** The addresses listening on `ports` in the network namespace `pid` lives in (IPv4 and IPv6), sorted. */
function listeners(pid: number, ports: number[]): string[] {
  const table = (file: string) =>
    spawnSync('nsenter', [`--net=/proc/${pid}/ns/net`, 'cat', file])
      .stdout.toString()
      .split('\n')
      .slice(1);
  const found: string[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    for (const line of table(file)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local) continue; // 0A: LISTEN
      const [hex, portHex] = local.split(':');
      const port = parseInt(portHex, 16);
      if (!ports.includes(port)) continue;
      const address = v6
        ? hex === '0'.repeat(32)
          ? '[::]'
          : `[${hex}]`
        : (hex.match(/../g) ?? [])
            .reverse()
            .map((b) => parseInt(b, 16))
            .join('.');
      found.push(`${address}:${port}`);
    }
  }
  return found.sort();
}

/** Whether any process (the start script, a service, redis-server, postgres) is left in the group. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
