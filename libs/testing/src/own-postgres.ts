import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A PostgreSQL cluster of the test's own, so it can be stopped and started mid-run without touching the shared one. */
export interface OwnPostgres {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** Debian's binaries, run as the `postgres` OS user (PostgreSQL refuses root), on a free loopback port. */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBin();
  const home = mkdtempSync(join(tmpdir(), 'own-pg-'));
  const data = join(home, 'data');
  const { uid, gid } = await postgresUser();
  chownSync(home, uid, gid);
  const port = await freePort();
  const asPostgres = (tool: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { timeout: 60_000 });
  await asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '--no-locale', '-E', 'UTF8']);
  const ctl = (args: string[]) => asPostgres('pg_ctl', ['-D', data, '-l', join(home, 'log'), ...args]);
  const start = async () => {
    await ctl([
      '-w',
      '-o',
      `-p ${port} -k ${home} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`,
      'start',
    ]);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: async () => {
      await ctl(['-m', 'immediate', 'stop']);
    },
    destroy: async () => {
      await ctl(['-m', 'immediate', 'stop']).catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  if (!version) throw new Error('Debian PostgreSQL binaries not found under /usr/lib/postgresql');
  return join(root, version, 'bin');
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
