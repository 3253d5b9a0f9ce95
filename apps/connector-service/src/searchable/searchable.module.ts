import { DynamicModule, Module } from '@nestjs/common';
import { ProcessRole } from '@app/config';
import { ConnectorEventsModule } from '../events/connector-events.module';
import { SearchableAnnouncer } from './searchable-announcer';
import { SearchableRepository } from './searchable.repository';

/** DataSourceSearchable: when a data source has no text extraction pending any more after a run. */
@Module({})
export class SearchableModule {
  static forRole(role: ProcessRole): DynamicModule {
    return {
      module: SearchableModule,
      imports: [ConnectorEventsModule.forRole(role)],
      providers: [SearchableRepository, SearchableAnnouncer],
      exports: [SearchableAnnouncer, ConnectorEventsModule],
    };
  }
}
