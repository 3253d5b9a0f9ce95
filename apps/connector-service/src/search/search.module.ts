import { Module } from '@nestjs/common';
import { DataSourcesModule } from '../data-sources/data-sources.module';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';

@Module({
  imports: [DataSourcesModule],
  controllers: [SearchController],
  providers: [SearchService],
})
export class SearchModule {}
