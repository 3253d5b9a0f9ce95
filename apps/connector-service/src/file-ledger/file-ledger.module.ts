import { Module } from '@nestjs/common';
import { FileLedgerRepository } from './file-ledger.repository';
import { LedgerRetention } from './ledger-retention';

/** The per-file ledger of sync runs: written by sync steps and text extraction, read by the run's files and the tree. */
@Module({
  providers: [FileLedgerRepository, LedgerRetention],
  exports: [FileLedgerRepository, LedgerRetention],
})
export class FileLedgerModule {}
