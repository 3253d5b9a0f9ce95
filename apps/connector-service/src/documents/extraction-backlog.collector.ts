import { Injectable } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Gauge } from 'prom-client';
import { ScrapeCollector } from '@app/metrics';
import { EXTRACTION_BACKLOG } from '../metrics/connector-metrics';
import { DocumentsRepository } from './documents.repository';

/** Documents still waiting for their text, counted on each scrape. */
@Injectable()
export class ExtractionBacklogCollector extends ScrapeCollector {
  constructor(
    private readonly documents: DocumentsRepository,
    @InjectMetric(EXTRACTION_BACKLOG) private readonly backlog: Gauge,
  ) {
    super();
  }

  async collect(): Promise<void> {
    this.backlog.set(await this.documents.countAllPendingExtractions());
  }
}
