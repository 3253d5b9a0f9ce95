/**
 * A built service (a .js file under dist/) in its own process, as it runs in production: what a bench
 * measures, apart from the bench's own clients, whose work would otherwise share the service's event loop.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..');

export type Syscalls = { reads: number; writes: number };
export type Service = { cpuMs: () => number; syscalls: () => Syscalls; stop: () => Promise<void> };

/**
 * Starts a built service in its own process and waits until `/health/ready` answers 200. `BENCH_PROFILE_DIR`
 * writes its CPU profile there; `BENCH_SERVICE_NODE_FLAGS` starts it with Node flags.
 */
export async function spawnService(
  main: string,
  env: Record<string, string>,
  ready: { port: number; timeoutMs?: number },
): Promise<Service> {
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const flags = (process.env.BENCH_SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...profile, ...flags, main], {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(
    () => child.exitCode === null && healthy.has(ready.port),
    ready.timeoutMs ?? 60_000,
    () => probe(ready.port),
  );
  return {
    cpuMs: () => cpuMsOf(child.pid!),
    syscalls: () => syscallsOf(child.pid!),
    stop: async () => {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      child.kill('SIGKILL');
    },
  };
}

export function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    }),
  );
}

export function waitFor(condition: () => boolean, timeoutMs: number, onTick?: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (condition()) return resolve();
      if (Date.now() > deadline) return reject(new Error('timed out'));
      onTick?.();
      setTimeout(tick, 20);
    };
    tick();
  });
}

/** User + system CPU of a process so far (Linux /proc; 0 elsewhere). */
function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** Read and write system calls of a process so far, all its threads (Linux /proc; 0 elsewhere). */
function syscallsOf(pid: number): Syscalls {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const count = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? 0);
    return { reads: count('syscr'), writes: count('syscw') };
  } catch {
    return { reads: 0, writes: 0 };
  }
}

const healthy = new Set<number>();
const probing = new Set<number>();
function probe(port: number): void {
  if (probing.has(port)) return;
  probing.add(port);
  const req = httpRequest({ host: '127.0.0.1', port, path: '/health/ready', timeout: 1000 }, (res) => {
    res.resume();
    if (res.statusCode === 200) healthy.add(port);
  });
  req.on('error', () => undefined);
  req.on('close', () => probing.delete(port));
  req.end();
}
