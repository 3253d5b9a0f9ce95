import { Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import type { Cluster, Redis } from 'ioredis';
import { InvalidJobDataError } from '../job-data';
import { isLastAttempt } from '../queue-processor';
import { addArgs, waitingOf } from './fair-share-lanes';
import { FairShareScripts, Reply } from './fair-share-scripts';
import { FairShareTurns } from './fair-share-turns';
import {
  DEFAULT_LEASES,
  FairJob,
  FairShareLeases,
  FairShareOptions,
  FairShareState,
  WorkerSlots,
} from './fair-share.types';

/**
 * Slots of one queue shared between tenants across every process (docs/fair-share.md). Work waits here,
 * per tenant, and enters the Bull queue only when a slot is its: round robin between the tenants with work
 * waiting, none holding more than half of the slots not reserved while another waits; within a tenant, its lanes in
 * turn (`FairJob.lane`). A slot is held from admission
 * until the job ends for good (`run`), or by work run outside Bull (`hold`).
 */
export class FairShare implements OnApplicationShutdown {
  private readonly logger = new Logger(FairShare.name);
  private readonly scripts: FairShareScripts;
  private readonly turns: FairShareTurns;
  /** Jobs running here that were put back: their Bull job ends without giving a slot back. */
  private readonly putBackIds = new Set<string>();
  private readonly leases: FairShareLeases;
  private leaving?: Promise<void>;

  constructor(
    private readonly queue: Queue,
    private readonly redis: Redis | Cluster,
    keyPrefix: string,
    options: FairShareOptions,
  ) {
    this.leases = { ...DEFAULT_LEASES, ...options.leases };
    const { aloneShare } = options;
    this.scripts = new FairShareScripts(queue, redis, keyPrefix, { aloneShare, leases: this.leases }, this.logger);
    this.turns = new FairShareTurns(this.scripts, redis, this.leases, this.logger, queue.name);
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
    const [, ...admitted] = (await this.scripts.call('fairAdd', addArgs(items))) as Reply;
    const soonest = Math.min(...items.map((item) => item.delayMs ?? 0).filter((delay) => delay > 0));
    if (Number.isFinite(soonest)) this.turns.takeTurnIn(soonest);
    await this.scripts.handOver(admitted);
  }

  /** Drops a delayed job that is no longer needed. False when it is not delayed (any more). */
  async withdraw(jobId: string): Promise<boolean> {
    return (await this.scripts.call('fairWithdraw', [jobId])) === 1;
  }

  /** Whether a job is still here: waiting, delayed, or admitted and not yet ended. */
  async has(jobId: string): Promise<boolean> {
    return (await this.redis.hexists(this.scripts.key.entries, jobId)) === 1;
  }

  /**
   * Takes a slot for work this process runs outside Bull, if the tenant (and its `lane`, as `FairJob.lane`) may have
   * one now. The process renews it until `release(holdId)`; should the process die, it lapses (`holdMs`).
   */
  async hold(tenantId: string, holdId: string, lane = ''): Promise<boolean> {
    const taken = (await this.scripts.call('fairHold', [holdId, tenantId, String(this.leases.holdMs), lane])) === 1;
    if (taken) this.turns.renewHold(holdId);
    return taken;
  }

  /** Whether a hold is taken now, by any process (until it is released, or lapses with its process). */
  async isHeld(holdId: string): Promise<boolean> {
    return (await this.redis.hexists(this.scripts.key.lease, holdId)) === 1;
  }

  /** Gives a slot back (a hold, or a job that ended) and hands what it admits in its place to Bull. */
  async release(id: string): Promise<void> {
    this.turns.stopRenewing(id);
    const [, ...admitted] = (await this.scripts.call('fairRelease', [id])) as Reply;
    void this.scripts.handOver(admitted);
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
    const [, ...admitted] = (await this.scripts.call('fairPutBack', args)) as Reply;
    this.putBackIds.add(id);
    this.turns.takeTurnIn(delayMs);
    void this.scripts.handOver(admitted);
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
    await this.turns.serve(slots);
  }

  /**
   * Whether another tenant with work waiting holds fewer than half of the slots not reserved and at least two
   * fewer than this tenant, or, while this tenant rests, fewer than its share: a slot this tenant gives back
   * (`putBack`) goes to it, now or after the next.
   */
  async wantedByAnother(tenantId: string): Promise<boolean> {
    return (await this.scripts.call('fairWanted', [tenantId])) === 1;
  }

  async state(): Promise<FairShareState> {
    const { ring, leases, delayed, held, capacity, lanes } = this.scripts.key;
    const [tenants, inUse, delayedCount, heldBy, capacities] = await Promise.all([
      this.redis.lrange(ring, 0, -1),
      this.redis.zcard(leases),
      this.redis.zcard(delayed),
      this.redis.hgetall(held),
      this.redis.hvals(capacity),
    ]);
    const lengths = await Promise.all(
      tenants.map((tenant) => waitingOf(this.redis, this.scripts.waitingPrefix, lanes, tenant)),
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
    const slots = this.turns.stopServing();
    this.leaving ??= Promise.all([this.queue.pause(true, true), slots ? this.turns.unregister() : undefined]).then(
      () => undefined,
      (error: Error) => this.logger.warn({ queue: this.queue.name, error: error.message }, 'fair share not left'),
    );
    return this.leaving;
  }

  async onApplicationShutdown(): Promise<void> {
    this.turns.stop();
    await this.leaving;
    if (this.turns.serving) await this.turns.unregister();
    // Jobs still running give their slots back as they end; Bull's close (memoized) waits for them.
    await this.queue.close();
    this.redis.disconnect();
  }
}
