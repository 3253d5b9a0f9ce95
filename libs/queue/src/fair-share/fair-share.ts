import { Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Job, JobOptions, Queue } from 'bull';
import type { Cluster, Redis } from 'ioredis';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { addJobs } from '../add-jobs';
import { InvalidJobDataError } from '../job-data';
import { isLastAttempt } from '../queue-processor';
import { addArgs, waitingOf } from './fair-share-lanes';
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
import {
  DEFAULT_LEASES,
  FairJob,
  FairShareLeases,
  FairShareOptions,
  FairShareState,
  WorkerSlots,
} from './fair-share.types';

const ADMIT_PER_CALL = 200;

type Reply = Array<string | number>;
type ScriptName = 'fairAdd' | 'fairRelease' | 'fairTick' | 'fairHold' | 'fairWithdraw' | 'fairPutBack' | 'fairWanted';
type Scripts = Record<ScriptName, (...args: string[]) => Promise<Reply | number>>;
type Key = (typeof FAIR_SHARE_KEYS)[number];

/**
 * Slots of one queue shared between tenants across every process (docs/fair-share.md). Work waits here,
 * per tenant, and enters the Bull queue only when a slot is its: round robin between the tenants with work
 * waiting, none holding more than half of the slots not reserved while another waits; within a tenant, its lanes in
 * turn (`FairJob.lane`). A slot is held from admission
 * until the job ends for good (`run`), or by work run outside Bull (`hold`).
 */
export class FairShare implements OnApplicationShutdown {
  private readonly logger = new Logger(FairShare.name);
  private readonly key: Record<Key, string>;
  private readonly keys: string[];
  private readonly args: string[];
  private readonly waitingPrefix: string;
  private readonly process = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly holds = new Set<string>();
  /** Jobs running here that were put back: their Bull job ends without giving a slot back. */
  private readonly putBackIds = new Set<string>();
  private readonly leases: FairShareLeases;
  private worker: WorkerSlots = { slots: 0, reserved: 0 };
  private timer?: NodeJS.Timeout;
  private nextTurnAt = Infinity;
  private turn?: Promise<void>;
  /** A turn was asked for while one ran: another follows at once. */
  private again = false;
  private stopped = false;
  private leaving?: Promise<void>;

  constructor(
    private readonly queue: Queue,
    private readonly redis: Redis | Cluster,
    keyPrefix: string,
    options: FairShareOptions,
  ) {
    const base = `${keyPrefix}:fair:${queue.name}`;
    this.waitingPrefix = `${base}:waiting:`;
    this.key = Object.fromEntries(FAIR_SHARE_KEYS.map((key) => [key, `${base}:${key}`])) as Record<Key, string>;
    this.keys = FAIR_SHARE_KEYS.map((key) => this.key[key]);
    this.leases = { ...DEFAULT_LEASES, ...options.leases };
    const { handOverMs, recheckMs } = this.leases;
    this.args = [
      this.waitingPrefix,
      `${keyPrefix}:${queue.name}:`,
      options.aloneShare,
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

  get queueName(): string {
    return this.queue.name;
  }

  /** Adds a tenant's job; due after `delayMs`. It enters Bull once a slot is its (at once when one is free). */
  async add(tenantId: string, job: FairJob, delayMs = 0): Promise<void> {
    await this.addMany([{ tenantId, job, delayMs }]);
  }

  async addMany(items: Array<{ tenantId: string; job: FairJob; delayMs?: number }>): Promise<void> {
    if (!items.length) return;
    const [, ...admitted] = (await this.call('fairAdd', addArgs(items))) as Reply;
    const soonest = Math.min(...items.map((item) => item.delayMs ?? 0).filter((delay) => delay > 0));
    if (Number.isFinite(soonest)) this.takeTurnIn(soonest);
    await this.handOver(admitted);
  }

  /** Drops a delayed job that is no longer needed. False when it is not delayed (any more). */
  async withdraw(jobId: string): Promise<boolean> {
    return (await this.call('fairWithdraw', [jobId])) === 1;
  }

  /** Whether a job is still here: waiting, delayed, or admitted and not yet ended. */
  async has(jobId: string): Promise<boolean> {
    return (await this.redis.hexists(this.key.entries, jobId)) === 1;
  }

  /**
   * Takes a slot for work this process runs outside Bull, if the tenant (and its `lane`, as `FairJob.lane`) may have
   * one now. The process renews it until `release(holdId)`; should the process die, it lapses (`holdMs`).
   */
  async hold(tenantId: string, holdId: string, lane = ''): Promise<boolean> {
    const taken = (await this.call('fairHold', [holdId, tenantId, String(this.leases.holdMs), lane])) === 1;
    if (taken) {
      this.holds.add(holdId);
      this.takeTurnIn(this.leases.turnMs);
    }
    return taken;
  }

  /** Whether a hold is taken now, by any process (until it is released, or lapses with its process). */
  async isHeld(holdId: string): Promise<boolean> {
    return (await this.redis.hexists(this.key.lease, holdId)) === 1;
  }

  /** Gives a slot back (a hold, or a job that ended) and hands what it admits in its place to Bull. */
  async release(id: string): Promise<void> {
    this.holds.delete(id);
    const [, ...admitted] = (await this.call('fairRelease', [id])) as Reply;
    void this.handOver(admitted);
  }

  /**
   * From within `run`, instead of the job's work: gives its slot back at once and puts the job back in the
   * fair share, due after `delayMs` (a job that would wait in its process holding a slot another tenant
   * needs). Its Bull job then ends as done; when it is admitted again, it is added to Bull again, so Bull
   * must have removed the first on completion (`removeOnComplete`): a job Bull kept would stop it.
   * With `rest`, its tenant takes no slot until the job is due, and is not counted as waiting meanwhile, so
   * the tenants that wait share every slot it gives back (it declined them: its work cannot run now).
   */
  async putBack(job: Job, delayMs: number, { rest = false }: { rest?: boolean } = {}): Promise<void> {
    if (job.opts.removeOnComplete !== true)
      throw new Error(`${this.queue.name} job ${job.id}: only a job removed on completion can be put back`);
    const id = String(job.id);
    const args = [id, String(Math.max(1, Math.round(delayMs))), rest ? '1' : '0'];
    const [, ...admitted] = (await this.call('fairPutBack', args)) as Reply;
    this.putBackIds.add(id);
    this.takeTurnIn(delayMs);
    void this.handOver(admitted);
  }

  /**
   * Runs a job that holds a slot and gives the slot back when the job ends for good: done, refused, or
   * failed on its last attempt. Between Bull's own attempts the slot stays with the job.
   */
  async run<R>(job: Job, work: () => Promise<R>): Promise<R> {
    let ended = true;
    try {
      return await work();
    } catch (error) {
      ended = isLastAttempt(job) || error instanceof InvalidJobDataError;
      throw error;
    } finally {
      if (this.putBackIds.delete(String(job.id))) ended = false;
      if (ended)
        await this.release(String(job.id)).catch((error: Error) =>
          this.logger.warn({ queue: this.queue.name, jobId: job.id, error: error.message }, 'slot not given back'),
        );
    }
  }

  /** Gives this process's slots to the fair share, and takes its turns until shutdown; resolves after the first. */
  async serve(slots: WorkerSlots): Promise<void> {
    this.worker = slots;
    await this.takeTurn();
  }

  /**
   * Whether another tenant with work waiting holds fewer than half of the slots not reserved and at least two
   * fewer than this tenant, or, while this tenant rests, fewer than its share: a slot this tenant gives back
   * (`putBack`) goes to it, now or after the next.
   */
  async wantedByAnother(tenantId: string): Promise<boolean> {
    return (await this.call('fairWanted', [tenantId])) === 1;
  }

  async state(): Promise<FairShareState> {
    const { ring, leases, delayed, held, capacity } = this.key;
    const [tenants, inUse, delayedCount, heldBy, capacities] = await Promise.all([
      this.redis.lrange(ring, 0, -1),
      this.redis.zcard(leases),
      this.redis.zcard(delayed),
      this.redis.hgetall(held),
      this.redis.hvals(capacity),
    ]);
    const lengths = await Promise.all(
      tenants.map((tenant) => waitingOf(this.redis, this.waitingPrefix, this.key.lanes, tenant)),
    );
    const [slots, reserved] = capacities
      .map((value) => value.split(':').map(Number))
      .reduce(([s, r], [a, b]) => [s + a, r + b], [0, 0]);
    return {
      slots,
      reserved,
      inUse,
      held: Object.fromEntries(Object.entries(heldBy).map(([tenant, n]) => [tenant, Number(n)])),
      waiting: Object.fromEntries(tenants.map((tenant, i) => [tenant, lengths[i]])),
      delayed: delayedCount,
    };
  }

  /**
   * This process takes no new job of the queue (its shutdown has begun): its Bull worker stops fetching and
   * its slots leave the fair share, so none is admitted for them. Jobs running here go on; holds are renewed.
   */
  leave(): Promise<void> {
    const { slots } = this.worker;
    this.worker = { slots: 0, reserved: 0 };
    this.leaving ??= Promise.all([this.queue.pause(true, true), slots ? this.unregister() : undefined]).then(
      () => undefined,
      (error: Error) => this.logger.warn({ queue: this.queue.name, error: error.message }, 'fair share not left'),
    );
    return this.leaving;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.leaving;
    if (this.worker.slots) await this.unregister();
    // Jobs still running give their slots back as they end; Bull's close (memoized) waits for them.
    await this.queue.close();
    this.redis.disconnect();
  }

  /** Takes this process's slots out of the fair share; a Redis that is away holds it a second at most. */
  private async unregister(): Promise<void> {
    await this.turn; // a turn in flight may register the slots again
    const { workers, capacity } = this.key;
    const leaving = this.redis.multi().zrem(workers, this.process).hdel(capacity, this.process).exec();
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([leaving, new Promise((resolve) => (waited = setTimeout(resolve, 1000)))]);
    clearTimeout(waited); // a pending timer would hold the process up to a second after its close
  }

  private takeTurnIn(ms: number): void {
    const at = Date.now() + ms;
    if (this.stopped || at >= this.nextTurnAt) return;
    clearTimeout(this.timer);
    this.nextTurnAt = at;
    this.timer = setTimeout(() => void this.takeTurn(), ms);
  }

  private async takeTurn(): Promise<void> {
    this.nextTurnAt = Infinity;
    if (this.turn) {
      this.again = true;
      return;
    }
    let nextIn = this.leases.turnMs;
    this.turn = (async () => {
      const { slots, reserved } = this.worker;
      const { registrationMs, holdMs } = this.leases;
      const args = [this.process, slots, reserved, registrationMs, holdMs, ...this.holds].map(String);
      const [dueIn, ...admitted] = (await this.call('fairTick', args)) as Reply;
      if (Number(dueIn) >= 0) nextIn = Math.min(nextIn, Number(dueIn));
      await this.handOver(admitted);
    })()
      .catch((error: Error) => this.logger.warn({ queue: this.queue.name, error: error.message }, 'fair share turn'))
      .finally(() => (this.turn = undefined));
    await this.turn;
    if (this.again) nextIn = 0;
    this.again = false;
    if (this.worker.slots || this.holds.size || nextIn === 0) this.takeTurnIn(nextIn);
  }

  /** Admitted jobs into Bull. Should this fail or the process die first, the lease's check puts them back. */
  private async handOver(admitted: Reply): Promise<void> {
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

  private call(name: ScriptName, args: string[]): Promise<Reply | number> {
    return (this.redis as unknown as Scripts)[name](...this.keys, ...this.args, ...args);
  }
}
