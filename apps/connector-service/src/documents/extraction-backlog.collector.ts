import { Injectable } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Gauge } from 'prom-client';
import { ScrapeCollector, singleFlight } from '@app/metrics';
import { EXTRACTION_BACKLOG } from '../metrics/connector-metrics';
import { DocumentsRepository } from './documents.repository';

/**
 * How long the count may run in PostgreSQL: longer than a scrape waits for it (COLLECT_TIMEOUT_MS), so a
 * slow count still lands for the next scrape; shorter than a scrape interval, so a count stuck behind a
 * lock does not hold its connection from one scrape to the next.
 */
const COUNT_TIMEOUT_MS = 5000;

/** Documents still waiting for their text, counted on each scrape: one count at a time, shared by the scrapes that ask. */
@Injectable()
export class ExtractionBacklogCollector extends ScrapeCollector {
  private readonly count = singleFlight(async () => {
    this.backlog.set(await this.documents.countAllPendingExtractions(COUNT_TIMEOUT_MS));
  });

  constructor(
    private readonly documents: DocumentsRepository,
    @InjectMetric(EXTRACTION_BACKLOG) private readonly backlog: Gauge,
  ) {
    super();
  }

  collect(): Promise<void> {
    return this.count();
  }
}
