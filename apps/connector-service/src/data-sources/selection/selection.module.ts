import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../../connections/connections.module';
import { DataSourcesModule } from '../data-sources.module';
import { FoldersModule } from '../folders/folders.module';
import { SelectionController } from './selection.controller';
import { SelectionReset } from './selection-reset';
import { SelectionService } from './selection.service';

/** A data source's include/exclude folder selection (the rules themselves: ../selection-rules.ts). */
@Module({
  imports: [DataSourcesModule, FoldersModule, ConnectionsModule],
  controllers: [SelectionController],
  providers: [SelectionService, SelectionReset],
  exports: [SelectionService, SelectionReset],
})
export class SelectionModule {}
