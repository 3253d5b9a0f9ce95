import { Injectable } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import { FileLedgerRepository } from './file-ledger.repository';

/**
 * Every run adds a row per file it saw, unchanged ones too, so a scheduled data source would grow its
 * ledger without end: only the latest LEDGER_KEEP_RUNS runs of a data source keep theirs.
 */
@Injectable()
export class LedgerRetention {
  constructor(
    private readonly env: ConnectorEnv,
    private readonly ledger: FileLedgerRepository,
  ) {}

  /** Forgets the ledgers of the data source's runs older than the ones kept; safe to repeat. */
  forgetOlderRuns(dataSourceId: string): Promise<void> {
    return this.ledger.forgetRunsBeyond(dataSourceId, this.env.LEDGER_KEEP_RUNS);
  }
}
