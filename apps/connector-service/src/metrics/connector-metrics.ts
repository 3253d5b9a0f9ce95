import { Injectable } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Histogram } from 'prom-client';
import { extractionKind } from '../extraction/text-extractor';

export const SYNC_RUNS = 'sync_runs_total';
export const SYNC_FILES = 'sync_files_total';
export const SYNC_BYTES = 'sync_bytes_downloaded_total';
export const EXTRACTION_DURATION = 'extraction_duration_seconds';
export const TOKEN_REFRESHES = 'oauth_token_refreshes_total';
/** Collected by the documents store on each scrape. */
export const EXTRACTION_BACKLOG = 'extraction_backlog_documents';

export type TokenRefreshResult = 'succeeded' | 'needs_reauth' | 'unavailable';

/** The connector's own counters: one call per event, from sync, indexing and the token refresher. */
@Injectable()
export class ConnectorMetrics {
  constructor(
    @InjectMetric(SYNC_RUNS) private readonly runs: Counter<'status'>,
    @InjectMetric(SYNC_FILES) private readonly files: Counter<'result'>,
    @InjectMetric(SYNC_BYTES) private readonly bytes: Counter,
    @InjectMetric(EXTRACTION_DURATION) private readonly extraction: Histogram<'format' | 'status'>,
    @InjectMetric(TOKEN_REFRESHES) private readonly refreshes: Counter<'result'>,
  ) {}

  /** A run ended (its ending committed): its status, its files by result (added, updated, …) and its bytes. */
  syncRunEnded(run: { status: string; files: Record<string, number>; bytesDownloaded: number }): void {
    this.runs.inc({ status: run.status });
    for (const [result, count] of Object.entries(run.files)) if (count) this.files.inc({ result }, count);
    if (run.bytesDownloaded) this.bytes.inc(run.bytesDownloaded);
  }

  /** Times one extraction by the format it was read as (never the file's name or MIME type: user input). */
  async timeExtraction<T extends { status: string }>(
    mimeType: string,
    name: string,
    extract: () => Promise<T>,
  ): Promise<T> {
    const stop = this.extraction.startTimer({ format: extractionKind(mimeType, name) ?? 'unsupported' });
    try {
      const extraction = await extract();
      stop({ status: extraction.status });
      return extraction;
    } catch (error) {
      stop({ status: 'Error' });
      throw error;
    }
  }

  tokenRefreshed(result: TokenRefreshResult): void {
    this.refreshes.inc({ result });
  }
}
