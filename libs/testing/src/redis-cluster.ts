import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './eventually';

const run = promisify(execFile);

/** A Redis Cluster of the test's own on loopback: three masters, no replicas, every slot served. */
export interface RunningRedisCluster {
  /** `127.0.0.1:port,…`, as REDIS_CLUSTER_NODES takes it. */
  nodes: string;
  ports: number[];
  /** Every key in the cluster, read node by node (SCAN covers one node only). */
  keys(): Promise<string[]>;
  /** The keys each node holds, in the order of `ports`. */
  keysByNode(): Promise<string[][]>;
  /** Kills one node: its slots go unserved, and once the others notice, the cluster state is `fail`. */
  killNode(index: number): Promise<void>;
  stop(): Promise<void>;
}

export const hasRedisServer = (): boolean =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => existsSync(join(dir, 'redis-server')));

export async function startRedisCluster(size = 3): Promise<RunningRedisCluster> {
  const home = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
  const servers: ChildProcess[] = [];
  const ports: number[] = [];
  // Should the test process end without stop(), the nodes end with it.
  const killAll = () => servers.forEach((server) => server.kill('SIGKILL'));
  process.once('exit', killAll);
  const stop = async () => {
    process.removeListener('exit', killAll);
    await Promise.all(servers.map((server) => stopServer(server)));
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const free = await freePorts(2 * size);
    for (let i = 0; i < size; i++) {
      ports.push(free[2 * i]);
      servers.push(startNode(join(home, String(free[2 * i])), free[2 * i], free[2 * i + 1]));
    }
    await Promise.all(ports.map((port) => eventually(() => cli(port, 'PING').then((out) => out === 'PONG'), 10000)));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const port of ports)
      await eventually(async () => /^cluster_state:ok\b/m.test(await cli(port, 'CLUSTER', 'INFO')), 10000, 100);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    keys: async () => (await keysByNode(ports)).flat(),
    keysByNode: () => keysByNode(ports),
    killNode: (index) => stopServer(servers[index]),
    stop,
  };
}

/**
 * A node without persistence; its cluster bus on a port of its own (the default, port + 10000, may be taken).
 * Node timeout 5 s: at 2 s, a node kept busy by the whole suite on two cores can be taken for failed, and
 * the cluster refuses commands meanwhile.
 */
function startNode(dir: string, port: number, busPort: number): ChildProcess {
  mkdirSync(dir);
  const args = ['--port', String(port), '--cluster-port', String(busPort), '--bind', '127.0.0.1', '--dir', dir];
  args.push('--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000');
  args.push('--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning');
  return spawn('redis-server', args, { stdio: 'ignore' });
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args])).stdout.trim();
}

const keysByNode = (ports: number[]): Promise<string[][]> =>
  Promise.all(ports.map(async (port) => (await cli(port, '--scan')).split('\n').filter(Boolean)));

function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once('exit', () => resolve());
    server.kill('SIGKILL');
  });
}

/** Ports free on loopback, all different: their listeners are open together. */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
