import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module, Provider } from '@nestjs/common';
import { ProcessRole, runsWorkers } from '@app/config';
import { DocumentStoreModule } from '../documents/document-store.module';
import { TextExtractor } from '../extraction/text-extractor';
import { ExtractionGate } from './extraction-gate';
import { INDEXING_QUEUE } from './indexing.jobs';
import { IndexingProcessor } from './indexing.processor';
import { IndexingProducer } from './indexing.producer';
import { IndexingService } from './indexing.service';

@Module({})
export class IndexingModule {
  /**
   * The producer always (sync adds jobs); the extractor, its PDF pool, the processor and the gate that
   * makes extraction give way to sync steps only in processes that run workers.
   */
  static forRole(role: ProcessRole): DynamicModule {
    const workers: Provider[] = runsWorkers(role) ? [TextExtractor, IndexingService, IndexingProcessor, ExtractionGate] : [];
    return {
      module: IndexingModule,
      imports: [BullModule.registerQueue({ name: INDEXING_QUEUE }), DocumentStoreModule],
      providers: [IndexingProducer, ...workers],
      exports: [IndexingProducer, ...(runsWorkers(role) ? [ExtractionGate] : [])],
    };
  }
}
