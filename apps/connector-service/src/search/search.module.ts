import { Module } from '@nestjs/common';
import { DataSourcesModule } from '../data-sources/data-sources.module';
import { SearchConnections } from './search-connections';
import { SearchController } from './search.controller';
import { SearchRepository } from './search.repository';
import { SearchService } from './search.service';

@Module({
  imports: [DataSourcesModule],
  controllers: [SearchController],
  providers: [SearchConnections, SearchRepository, SearchService],
})
export class SearchModule {}
