import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CredentialsModule } from '../credentials/credentials.module';
import { DocumentSystemModule } from '../document-system/document-system.module';
import { DocumentStoreModule } from '../documents/document-store.module';
import { DocumentSystemSessions } from '../folders/document-system-sessions';
import { FolderLocator } from '../folders/folder-locator';
import { FolderPickerService } from '../folders/folder-picker.service';
import { FoldersController } from '../folders/folders.controller';
import { PickerFolderEntity } from '../folders/picker-folder.entity';
import { SelectionController } from '../selection/selection.controller';
import { SelectionReset } from '../selection/selection-reset';
import { SelectionService } from '../selection/selection.service';
import { ConnectionChanges } from './connection-changes';
import { DataSourceMemberEntity } from './data-source-member.entity';
import { DataSourceAccess } from './data-source-access';
import { DataSourceEntity } from './data-source.entity';
import { DataSourcesController } from './data-sources.controller';
import { DataSourcesRepository } from './data-sources.repository';
import { DataSourcesService } from './data-sources.service';

/** Data sources with their members, folder picker and selection (one module: they share one aggregate). */
@Module({
  imports: [
    TypeOrmModule.forFeature([DataSourceEntity, DataSourceMemberEntity, PickerFolderEntity]),
    CredentialsModule,
    DocumentSystemModule,
    DocumentStoreModule,
  ],
  controllers: [DataSourcesController, FoldersController, SelectionController],
  providers: [
    ConnectionChanges,
    DataSourcesRepository,
    DataSourceAccess,
    DataSourcesService,
    DocumentSystemSessions,
    FolderLocator,
    FolderPickerService,
    SelectionReset,
    SelectionService,
  ],
  exports: [ConnectionChanges, DataSourcesRepository, DataSourceAccess, DocumentSystemSessions, FolderLocator],
})
export class DataSourcesModule {}
