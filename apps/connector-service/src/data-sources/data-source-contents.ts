import { Injectable } from '@nestjs/common';
import type { ExtractionProgressView } from '@app/contracts/views';
import { PortRegistry } from '../common/port-registry';

/** What another feature keeps for each data source: its documents, their text and their blobs. */
export interface DataSourceContents {
  extractionProgress(dataSourceId: string): Promise<ExtractionProgressView>;
  /** Runs `drop`, which deletes the data source (its documents go by cascade), then clears what it left behind. */
  removeWith(dataSourceId: string, drop: () => Promise<void>): Promise<void>;
}

/**
 * Where the feature that stores documents registers its DataSourceContents, so data sources use their
 * documents without depending on the documents feature (which depends on them for access).
 */
@Injectable()
export class DataSourceContentsRegistry extends PortRegistry<DataSourceContents> {
  constructor() {
    super('DataSourceContents: the documents module is not loaded');
  }
}
