import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSourcesModule } from '../../data-sources/data-sources.module';
import { FileLedgerModule } from '../../file-ledger/file-ledger.module';
import { SyncRunEntity } from '../sync-run.entity';
import { SyncRunAccess } from '../sync-run-access';
import { SyncRunsRepository } from '../sync-runs.repository';
import { SyncRunFilesController } from './sync-run-files.controller';
import { SyncRunFilesService } from './sync-run-files.service';

/** `GET /v1/sync-runs/{id}/files`: a run's file ledger, read-only. */
@Module({
  imports: [TypeOrmModule.forFeature([SyncRunEntity]), DataSourcesModule, FileLedgerModule],
  controllers: [SyncRunFilesController],
  providers: [SyncRunsRepository, SyncRunAccess, SyncRunFilesService],
})
export class SyncRunFilesModule {}
