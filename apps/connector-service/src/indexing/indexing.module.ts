import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module, Provider } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import { ProcessRole, runsWorkers } from '@app/config';
import { OutageModule } from '@app/database';
import { fairShareProvider } from '@app/queue';
import { BlobsModule } from '../blobs/blobs.module';
import { DocumentStoreModule } from '../documents/document-store.module';
import { TextExtractor } from '../extraction/text-extractor';
import { FileLedgerModule } from '../file-ledger/file-ledger.module';
import { ConnectorMetricsModule } from '../metrics/connector-metrics.module';
import { SearchableModule } from '../searchable/searchable.module';
import { ExtractionGate } from './extraction-gate';
import { INDEXING_FAIR_SHARE, INDEXING_QUEUE } from './indexing.jobs';
import { IndexingProcessor } from './indexing.processor';
import { IndexingProducer } from './indexing.producer';
import { IndexingService } from './indexing.service';
import { TextLayouts } from './text-layouts';

@Module({})
export class IndexingModule {
  /**
   * The producer always (sync adds jobs); the extractor, its pool of processes, the processor and the gate that
   * makes extraction give way to sync steps only in processes that run workers.
   */
  static forRole(role: ProcessRole): DynamicModule {
    const extractor: Provider = { provide: TextExtractor, inject: [ConnectorEnv], useFactory: textExtractorFrom };
    const workers: Provider[] = runsWorkers(role)
      ? [extractor, IndexingService, TextLayouts, IndexingProcessor, ExtractionGate]
      : [];
    return {
      module: IndexingModule,
      imports: [
        BullModule.registerQueue({ name: INDEXING_QUEUE }),
        DocumentStoreModule,
        FileLedgerModule,
        BlobsModule,
        ConnectorMetricsModule,
        OutageModule,
        SearchableModule.forRole(role),
      ],
      providers: [fairShareProvider(INDEXING_QUEUE, INDEXING_FAIR_SHARE), IndexingProducer, ...workers],
      exports: [IndexingProducer, ...(runsWorkers(role) ? [ExtractionGate] : [])],
    };
  }
}

function textExtractorFrom(env: ConnectorEnv): TextExtractor {
  return new TextExtractor({
    processes: env.EXTRACTION_WORKERS,
    timeoutMs: env.EXTRACTION_TIMEOUT_MS,
    maxHeapMb: env.EXTRACTION_MAX_HEAP_MB,
    maxTextBytes: env.MAX_TEXT_BYTES,
    nice: env.EXTRACTION_NICE,
  });
}
