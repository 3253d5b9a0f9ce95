import { Module } from '@nestjs/common';
import { DocumentApiModule } from '../document-api/document-api.module';
import { AdminApiController } from './admin-api.controller';
import { AdminTreeController } from './admin-tree.controller';

/** The admin API drives the document API's store and its fault injection (the same instances). */
@Module({
  imports: [DocumentApiModule],
  controllers: [AdminApiController, AdminTreeController],
})
export class AdminApiModule {}
