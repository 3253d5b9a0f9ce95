import type { JobOptions } from 'bull';

/** A Bull job as the fair share keeps it until a slot is its: `id` is its Bull job id, and makes adding it again a no-op. */
export interface FairJob {
  id: string;
  name: string;
  data: object;
  opts?: JobOptions;
  /**
   * Its lane within its tenant's share (fair-share-lanes.lua.ts), such as the receiver a delivery goes to: a
   * tenant's lanes take turns, each holding at most half of the slots the tenant may hold. None: it goes first.
   */
  lane?: string;
}

export interface FairShareOptions {
  /**
   * The share of all slots one tenant may hold while no other tenant has work waiting: 1 lets a lone tenant
   * use every slot but the reserved ones; 0.5 keeps half free for whoever comes, for work that may last long.
   */
  aloneShare: number;
  /** How long leases last; the defaults suit production, tests shorten them. */
  leases?: Partial<FairShareLeases>;
}

export interface FairShareLeases {
  /** A process takes its turn (registers, renews its holds, moves due jobs, looks at leases, admits) at least this often. */
  turnMs: number;
  /** A process's registration lapses this long after its last turn: its slots no longer count. */
  registrationMs: number;
  /** A hold lapses this long after its process last renewed it. */
  holdMs: number;
  /** How long an admitted job has to reach Bull before its lease is looked at (and the job put back if it is not there). */
  handOverMs: number;
  /** How often the lease of a job in Bull is looked at: it ends once Bull has finished the job, or lost it. */
  recheckMs: number;
}

export const DEFAULT_LEASES: FairShareLeases = {
  turnMs: 1000,
  registrationMs: 10_000,
  holdMs: 30_000,
  handOverMs: 10_000,
  recheckMs: 5000,
};

/** What one worker process gives the fair share: its slots, and how many of them only a tenant holding none may take. */
export interface WorkerSlots {
  slots: number;
  reserved: number;
}

/** The shared state, for tests, benches and operators. */
export interface FairShareState {
  slots: number;
  reserved: number;
  inUse: number;
  held: Record<string, number>;
  waiting: Record<string, number>;
  delayed: number;
}
