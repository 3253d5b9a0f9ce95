import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { eventually } from './eventually';

/**
 * A Redis server of the test's own, so it can be restarted mid-run without touching the shared one: with an
 * append-only file (a restart keeps every key), or, with `keepsData: false`, nothing on disk (a restart loses them all).
 */
export interface OwnRedis {
  url: string;
  /** Stops it as an outage would (SIGKILL): what it acknowledged is on disk already, when it keeps data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startOwnRedis({ keepsData = true }: { keepsData?: boolean } = {}): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'own-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;
  const kill = () => server?.kill('SIGKILL');
  process.once('exit', kill);
  const stop = async () => {
    const running = server;
    server = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  const start = async () => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--loglevel', 'warning'];
    args.push('--appendonly', keepsData ? 'yes' : 'no', '--appendfsync', 'always', '--daemonize', 'no');
    server = spawn('redis-server', args, { stdio: 'ignore' });
    await eventually(async () => {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } finally {
        probe.disconnect();
      }
    }, 10_000);
  };
  await start();
  return {
    url,
    stop,
    start,
    destroy: async () => {
      process.removeListener('exit', kill);
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  const probe = createServer();
  return new Promise((resolve) =>
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    }),
  );
}
