import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSourcesModule } from '../data-sources.module';
import { FolderLocator } from './folder-locator';
import { FolderPickerService } from './folder-picker.service';
import { FoldersController } from './folders.controller';
import { PickerFolderEntity } from './picker-folder.entity';
import { PickerFoldersRepository } from './picker-folders.repository';

/** The folder picker, and where folders sit in the document system's tree. */
@Module({
  imports: [TypeOrmModule.forFeature([PickerFolderEntity]), DataSourcesModule],
  controllers: [FoldersController],
  providers: [PickerFoldersRepository, FolderLocator, FolderPickerService],
  exports: [FolderLocator],
})
export class FoldersModule {}
