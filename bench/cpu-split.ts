/**
 * Where a process's CPU went, from a V8 CPU profile (`node --cpu-prof`): each sample's own function is put
 * in one part (the HTTP stack, Nest, validation, database statements, Redis and Bull, JSON, signing and
 * hashing, logging, garbage collection, our code, the rest) by its package or Node module.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of time on the machine's monotonic clock in µs (`nowUs()` in any process), as a profile counts it. */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

export const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

const PARTS: Array<[string, RegExp]> = [
  [
    'HTTP in and out (Node, Express or Fastify, axios)',
    /node:_http|node:net|node:internal\/(http|streams|stream_base|url)|node:url|\/(express|body-parser|raw-body|router|finalhandler|on-finished|send|serve-static|type-is|content-type|qs|iconv-lite|helmet|cors|compression|fastify|@fastify\/[\w-]+|find-my-way|avvio|light-my-request|fast-querystring|fast-json-stringify|toad-cache|process-warning|abstract-logging|axios|follow-redirects|form-data|proxy-from-env)\//,
  ],
  [
    'socket writes (native: HTTP, Redis, PostgreSQL)',
    /^native:(writev|writeBuffer|writeUtf8String|writeLatin1String|writeAsciiString)$/,
  ],
  [
    'async context (AsyncLocalStorage, promise hooks)',
    /node:internal\/async_hooks|node:async_hooks|node:internal\/async_local_storage/,
  ],
  ['Nest (routing, guards, pipes, interceptors)', /\/@nestjs\/|\/rxjs\/|\/reflect-metadata\//],
  ['validation (class-validator, -transformer)', /\/class-validator\/|\/class-transformer\/|\/validator\//],
  ['database statements (pg, TypeORM)', /\/pg\/|\/pg-pool\/|\/pg-protocol\/|\/typeorm\/|\/pg-types\//],
  ['Redis and Bull', /\/ioredis\/|\/bull\/|\/msgpackr\/|\/redis-parser\/|\/@ioredis\/|\/cron-parser\/|\/lodash\//],
  ['signing and hashing (crypto, jose)', /node:crypto|node:internal\/crypto|\/jose\//],
  ['logging (pino)', /\/pino|\/@pinojs\/|\/sonic-boom\//],
  ['metrics (prom-client)', /\/prom-client\//],
  ['module loading (start-up)', /node:internal\/modules|^native:(readFileUtf8|internalModuleStat|compileFunction)$/],
  [
    'promises and timers (microtasks, task queues, events)',
    /^native:runMicrotasks$|node:internal\/process\/task_queues|node:internal\/timers|node:timers|node:events|node:domain/,
  ],
  ['files (fs: blobs, temporary files)', /node:fs|node:internal\/fs\//],
  ['our code (apps, libs)', /\/(apps|libs)\//],
];

export function cpuSplit(
  profileFile: string,
  window?: ProfileWindow,
): Array<{ part: string; ms: number; share: number }> {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    if (window && (at < window.fromUs || at > window.toUs)) return;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const part = partOf(nodes.get(id)!.callFrame);
    if (part === null) return;
    busy += ms;
    totals.set(part, (totals.get(part) ?? 0) + ms);
  });
  return [...totals].map(([part, ms]) => ({ part, ms, share: ms / busy })).sort((a, b) => b.ms - a.ms);
}

/** The part a sample's own function belongs to; null for idle time. */
function partOf({ functionName, url }: ProfileNode['callFrame']): string | null {
  if (functionName === '(idle)') return null;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (!url && /^(parse|stringify)$/.test(functionName)) return 'JSON';
  const where = url || `native:${functionName}`;
  const match = PARTS.find(([, pattern]) => pattern.test(where));
  if (match && !(match[0].startsWith('our code') && where.includes('node_modules'))) return match[0];
  return 'the rest (Node internals, other packages, V8)';
}

/** The newest profile in `dir`. */
export function newestProfile(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  return join(dir, files.sort((a, b) => statSync(join(dir, b)).mtimeMs - statSync(join(dir, a)).mtimeMs)[0]);
}

export function printCpuSplit(
  title: string,
  profileFile: string,
  window?: ProfileWindow,
  perItem?: { count: number; label: string },
): void {
  const span = window ? ` ${window.fromUs} ${window.toUs}` : '';
  console.log(`\n${title} (node -r ts-node/register bench/cpu-split.ts ${profileFile}${span}):`);
  for (const { part, ms, share } of cpuSplit(profileFile, window))
    console.log(
      `  ${part.padEnd(46)} ${ms.toFixed(0).padStart(7)} ms ${(share * 100).toFixed(1).padStart(5)} %` +
        (perItem ? `  ${(ms / perItem.count).toFixed(3)} ms per ${perItem.label}` : ''),
    );
}

if (require.main === module) {
  const [file, fromUs, toUs] = process.argv.slice(2);
  printCpuSplit('CPU split', file, fromUs ? { fromUs: Number(fromUs), toUs: Number(toUs) } : undefined);
}
