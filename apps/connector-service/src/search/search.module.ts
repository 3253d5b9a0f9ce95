import { Module } from '@nestjs/common';
import { DataSourcesModule } from '../data-sources/data-sources.module';
import { SearchConnections } from './search-connections';
import { SearchSlots } from './search-slots';
import { SearchController } from './search.controller';
import { SearchRepository } from './search.repository';
import { SearchService } from './search.service';

@Module({
  imports: [DataSourcesModule],
  controllers: [SearchController],
  providers: [
    SearchConnections,
    SearchRepository,
    SearchService,
    { provide: SearchSlots, useFactory: () => new SearchSlots() },
  ],
  // Passages run on the same connections and take turns in the same slots as searches.
  exports: [SearchConnections, SearchSlots],
})
export class SearchModule {}
