import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSourcesModule } from '../data-sources/data-sources.module';
import { RunPaceSampler } from './run-pace';
import { SyncRunEntity } from './sync-run.entity';
import { SyncRunAccess } from './sync-run-access';
import { RunStepsRepository } from './run-steps.repository';
import { SyncRunsRepository } from './sync-runs.repository';

/**
 * The run core every room of sync agrees on: runs and their tasks (their state machine is
 * `sync-run-state.ts`), and who may see one. The engine (engine/) runs runs, the API (api/) answers
 * HTTP, and run-files/ shows a run's files; each builds on this module, never the reverse.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SyncRunEntity]), DataSourcesModule],
  providers: [SyncRunsRepository, RunStepsRepository, SyncRunAccess, RunPaceSampler],
  exports: [SyncRunsRepository, RunStepsRepository, SyncRunAccess, RunPaceSampler],
})
export class SyncModule {}
