import { Module } from '@nestjs/common';
import { DataSourcesModule } from '../../data-sources/data-sources.module';
import { SearchModule } from '../search.module';
import { PassagesController } from './passages.controller';
import { PassagesRepository } from './passages.repository';
import { PassagesService } from './passages.service';

@Module({
  imports: [DataSourcesModule, SearchModule],
  controllers: [PassagesController],
  providers: [PassagesRepository, PassagesService],
})
export class PassagesModule {}
