import { Injectable } from '@nestjs/common';
import { Transaction } from '@app/database';
import { ConnectorEnv } from '../../connector-env';
import { RunStepsRepository } from '../run-steps.repository';
import { bytesLimitReached, storedWithinLimit, StoredWithinLimit } from './run-limits';
import type { LimitReached } from '../sync-run-steps';

/**
 * SYNC_MAX_BYTES beyond the listed sizes (CONTRACT.md, "Fair share and limits"): a file listed without a size,
 * or with fewer bytes than it has, brings its other bytes to the run only once downloaded.
 */
@Injectable()
export class RunBytes {
  constructor(
    private readonly steps: RunStepsRepository,
    private readonly env: ConnectorEnv,
  ) {}

  /** What a run whose bytes are `listedBytes` may still take beyond its files' listed sizes: a batch's downloads stop there. */
  headroom(listedBytes: number): number {
    return this.env.SYNC_MAX_BYTES - listedBytes;
  }

  /**
   * The downloads the run may store. Those that bring bytes beyond their listed sizes are weighed under the
   * run's listing lock, so the batches and listings that add to its bytes do so one at a time.
   */
  async storable<F>(
    transaction: Transaction,
    runId: string,
    downloads: F[],
    beyondListed: (download: F) => number,
  ): Promise<StoredWithinLimit<F>> {
    if (!downloads.some((download) => beyondListed(download) > 0))
      return { kept: downloads, dropped: [], addedBytes: 0, limit: null };
    const { listedBytes } = await this.steps.lockListing(transaction, runId);
    return storedWithinLimit(downloads, beyondListed, listedBytes, this.env.SYNC_MAX_BYTES);
  }

  /** The limit a file not stored for the run's bytes reached. */
  reached(): LimitReached {
    return bytesLimitReached(this.env.SYNC_MAX_BYTES);
  }
}
