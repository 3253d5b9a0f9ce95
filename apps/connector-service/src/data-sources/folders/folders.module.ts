import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConnectionsModule } from '../../connections/connections.module';
import { CredentialsModule } from '../../credentials/credentials.module';
import { DocumentSystemModule } from '../../document-system/document-system.module';
import { DataSourcesModule } from '../data-sources.module';
import { DocumentSystemSessions } from './document-system-sessions';
import { FolderLocator } from './folder-locator';
import { FolderPickerService } from './folder-picker.service';
import { FoldersController } from './folders.controller';
import { PickerFolderEntity } from './picker-folder.entity';
import { PickerFoldersRepository } from './picker-folders.repository';

/** The folder picker, where folders sit in the document system's tree, and sessions opened for a data source. */
@Module({
  imports: [
    TypeOrmModule.forFeature([PickerFolderEntity]),
    DataSourcesModule,
    CredentialsModule,
    ConnectionsModule,
    DocumentSystemModule,
  ],
  controllers: [FoldersController],
  providers: [PickerFoldersRepository, FolderLocator, FolderPickerService, DocumentSystemSessions],
  exports: [FolderLocator, DocumentSystemSessions],
})
export class FoldersModule {}
