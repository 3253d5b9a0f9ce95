import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../../connections/connections.module';
import { DataSourcesModule } from '../data-sources.module';
import { FoldersModule } from '../folders/folders.module';
import { EmptiedSelections } from './emptied-selections';
import { SelectionController } from './selection.controller';
import { SelectionReset } from './selection-reset';
import { SelectionService } from './selection.service';

/** A data source's include/exclude folder selection (the rules themselves: ../selection-rules.ts). */
@Module({
  imports: [DataSourcesModule, FoldersModule, ConnectionsModule],
  controllers: [SelectionController],
  providers: [SelectionService, SelectionReset, EmptiedSelections],
  exports: [SelectionService, SelectionReset, EmptiedSelections],
})
export class SelectionModule {}
