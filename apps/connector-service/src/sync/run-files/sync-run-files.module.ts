import { Module } from '@nestjs/common';
import { DataSourcesModule } from '../../data-sources/data-sources.module';
import { FileLedgerModule } from '../../file-ledger/file-ledger.module';
import { SyncModule } from '../sync.module';
import { SyncRunFilesController } from './sync-run-files.controller';
import { SyncRunFilesService } from './sync-run-files.service';

/** `GET /v1/sync-runs/{id}/files`: a run's file ledger, read-only. */
@Module({
  imports: [SyncModule, DataSourcesModule, FileLedgerModule],
  controllers: [SyncRunFilesController],
  providers: [SyncRunFilesService],
})
export class SyncRunFilesModule {}
