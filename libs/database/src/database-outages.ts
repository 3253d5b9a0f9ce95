import { Injectable } from '@nestjs/common';
import { DatabaseProbe } from './database-probe';
import { OutageRider } from './outage-rider';

/**
 * For queue jobs that also call other services: one that meets an outage of PostgreSQL is held (keeping
 * its lock and its slot) and run again once the database is back, instead of spending its attempts on
 * it; a failure of another service goes to the job's own retries as before.
 */
@Injectable()
export class DatabaseOutages {
  constructor(
    private readonly rider: OutageRider,
    private readonly probe: DatabaseProbe,
  ) {}

  hold<R>(work: () => Promise<R>): Promise<R> {
    return this.rider.ride(work, Infinity, () => this.probe.isAway());
  }
}
