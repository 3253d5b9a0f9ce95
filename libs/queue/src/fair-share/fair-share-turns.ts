import type { Logger } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { FairShareScripts, Reply } from './fair-share-scripts';
import { FairShareLeases, WorkerSlots } from './fair-share.types';

/**
 * This process's turns in a fair share (docs/fair-share.md): at each it registers its slots, renews its holds,
 * and hands over to Bull what the turn admits; it takes them at least every `turnMs` while it serves or holds,
 * and sooner when asked (a delayed job falls due).
 */
export class FairShareTurns {
  private readonly process = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly holds = new Set<string>();
  private worker: WorkerSlots = { slots: 0, reserved: 0 };
  private timer?: NodeJS.Timeout;
  private nextTurnAt = Infinity;
  private turn?: Promise<void>;
  /** A turn was asked for while one ran: another follows at once. */
  private again = false;
  private stopped = false;

  constructor(
    private readonly scripts: FairShareScripts,
    private readonly redis: Redis | Cluster,
    private readonly leases: FairShareLeases,
    private readonly logger: Logger,
    private readonly queueName: string,
  ) {}

  /** Whether this process gives slots to the fair share. */
  get serving(): boolean {
    return this.worker.slots > 0;
  }

  /** Gives this process's slots to the fair share, and takes its turns until stopped; resolves after the first. */
  async serve(slots: WorkerSlots): Promise<void> {
    this.worker = slots;
    await this.takeTurn();
  }

  /** Its turns register no slots from now on; returns how many this process gave. */
  stopServing(): number {
    const { slots } = this.worker;
    this.worker = { slots: 0, reserved: 0 };
    return slots;
  }

  /** Renews a hold this process took at every turn, until `stopRenewing`. */
  renewHold(holdId: string): void {
    this.holds.add(holdId);
    this.takeTurnIn(this.leases.turnMs);
  }

  stopRenewing(holdId: string): void {
    this.holds.delete(holdId);
  }

  /** No turn is taken any more (one in flight ends). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Takes this process's slots out of the fair share; a Redis that is away holds it a second at most. */
  async unregister(): Promise<void> {
    await this.turn; // a turn in flight may register the slots again
    const { workers, capacity } = this.scripts.key;
    const leaving = this.redis.multi().zrem(workers, this.process).hdel(capacity, this.process).exec();
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([leaving, new Promise((resolve) => (waited = setTimeout(resolve, 1000)))]);
    clearTimeout(waited); // a pending timer would hold the process up to a second after its close
  }

  takeTurnIn(ms: number): void {
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
      const [dueIn, ...admitted] = (await this.scripts.call('fairTick', args)) as Reply;
      if (Number(dueIn) >= 0) nextIn = Math.min(nextIn, Number(dueIn));
      await this.scripts.handOver(admitted);
    })()
      .catch((error: Error) => this.logger.warn({ queue: this.queueName, error: error.message }, 'fair share turn'))
      .finally(() => (this.turn = undefined));
    await this.turn;
    if (this.again) nextIn = 0;
    this.again = false;
    if (this.worker.slots || this.holds.size || nextIn === 0) this.takeTurnIn(nextIn);
  }
}
