import type { Logger } from '@nestjs/common';
import type { JobOptions, Queue } from 'bull';
import type { Cluster, Redis } from 'ioredis';
import { addJobs } from '../add-jobs';
import {
  ADD_SCRIPT,
  FAIR_SHARE_KEYS,
  HOLD_SCRIPT,
  PUT_BACK_SCRIPT,
  RELEASE_SCRIPT,
  TICK_SCRIPT,
  WANTED_SCRIPT,
  WITHDRAW_SCRIPT,
} from './fair-share.lua';
import { FairShareLeases } from './fair-share.types';

const ADMIT_PER_CALL = 200;

export type Reply = Array<string | number>;
type ScriptName = 'fairAdd' | 'fairRelease' | 'fairTick' | 'fairHold' | 'fairWithdraw' | 'fairPutBack' | 'fairWanted';
type Scripts = Record<ScriptName, (...args: string[]) => Promise<Reply | number>>;
type Key = (typeof FAIR_SHARE_KEYS)[number];

/**
 * The keys of a queue's fair share in Redis and the scripts that move its state (fair-share.lua.ts), defined on
 * its connection; what a script admits is handed over to Bull here.
 */
export class FairShareScripts {
  readonly key: Record<Key, string>;
  readonly waitingPrefix: string;
  private readonly keys: string[];
  private readonly args: string[];

  constructor(
    private readonly queue: Queue,
    private readonly redis: Redis | Cluster,
    keyPrefix: string,
    { aloneShare, leases }: { aloneShare: number; leases: FairShareLeases },
    private readonly logger: Logger,
  ) {
    const base = `${keyPrefix}:fair:${queue.name}`;
    this.waitingPrefix = `${base}:waiting:`;
    this.key = Object.fromEntries(FAIR_SHARE_KEYS.map((key) => [key, `${base}:${key}`])) as Record<Key, string>;
    this.keys = FAIR_SHARE_KEYS.map((key) => this.key[key]);
    const { handOverMs, recheckMs } = leases;
    this.args = [
      this.waitingPrefix,
      `${keyPrefix}:${queue.name}:`,
      aloneShare,
      ADMIT_PER_CALL,
      handOverMs,
      recheckMs,
    ].map(String);
    const scripts: Record<ScriptName, string> = {
      fairAdd: ADD_SCRIPT,
      fairRelease: RELEASE_SCRIPT,
      fairTick: TICK_SCRIPT,
      fairHold: HOLD_SCRIPT,
      fairWithdraw: WITHDRAW_SCRIPT,
      fairPutBack: PUT_BACK_SCRIPT,
      fairWanted: WANTED_SCRIPT,
    };
    for (const [name, lua] of Object.entries(scripts))
      redis.defineCommand(name, { numberOfKeys: this.keys.length, lua });
  }

  call(name: ScriptName, args: string[]): Promise<Reply | number> {
    return (this.redis as unknown as Scripts)[name](...this.keys, ...this.args, ...args);
  }

  /** Admitted jobs into Bull. Should this fail or the process die first, the lease's check puts them back. */
  async handOver(admitted: Reply): Promise<void> {
    if (!admitted.length) return;
    const jobs = [];
    for (let i = 0; i < admitted.length; i += 2) {
      const entry = JSON.parse(String(admitted[i + 1])) as { n: string; d: object; o: JobOptions };
      jobs.push({ name: entry.n, data: entry.d, opts: { ...entry.o, jobId: String(admitted[i]) } });
    }
    await addJobs(this.queue, jobs).catch((error: Error) =>
      this.logger.warn({ queue: this.queue.name, error: error.message }, 'admitted jobs not yet in the queue'),
    );
  }
}
