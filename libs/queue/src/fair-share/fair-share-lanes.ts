import type { Cluster, Redis } from 'ioredis';
import type { FairJob } from './fair-share.types';

/** What ADD_SCRIPT takes of each job: its id, tenant, entry (what Bull gets once it is admitted), delay and lane. */
export function addArgs(items: Array<{ tenantId: string; job: FairJob; delayMs?: number }>): string[] {
  return items.flatMap(({ tenantId, job, delayMs = 0 }) => [
    job.id,
    tenantId,
    JSON.stringify({ t: tenantId, r: job.lane, n: job.name, d: job.data, o: job.opts ?? {} }),
    String(Math.max(0, Math.round(delayMs))),
    job.lane ?? '',
  ]);
}

/** How many jobs of a tenant wait: in its own list and in its lanes (`lanesKey`: the lanes hash, KEYS 10). */
export async function waitingOf(
  redis: Redis | Cluster,
  waitingPrefix: string,
  lanesKey: string,
  tenant: string,
): Promise<number> {
  const [own, lanes] = await Promise.all([
    redis.llen(`${waitingPrefix}${tenant}`),
    redis.lrange(`${lanesKey}:ring:${tenant}`, 0, -1),
  ]);
  const field = (lane: string) => `${Buffer.byteLength(tenant)}:${tenant}${lane}`;
  const lengths = await Promise.all(lanes.map((lane) => redis.llen(`${lanesKey}:list:${field(lane)}`)));
  return lengths.reduce((sum, n) => sum + n, own);
}
