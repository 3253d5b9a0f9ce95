import { Module } from '@nestjs/common';
import { makeCounterProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import {
  ConnectorMetrics,
  EXTRACTION_DURATION,
  SYNC_BYTES,
  SYNC_FILES,
  SYNC_RUNS,
  TOKEN_REFRESHES,
} from './connector-metrics';

@Module({
  providers: [
    ConnectorMetrics,
    makeCounterProvider({ name: SYNC_RUNS, help: 'Sync runs ended, by final status', labelNames: ['status'] }),
    makeCounterProvider({
      name: SYNC_FILES,
      help: 'Files of ended sync runs, by result (added, updated, unchanged, deleted, failed, skipped)',
      labelNames: ['result'],
    }),
    makeCounterProvider({ name: SYNC_BYTES, help: 'Bytes downloaded by ended sync runs' }),
    makeHistogramProvider({
      name: EXTRACTION_DURATION,
      help: 'Text extraction of one document, by format and status',
      labelNames: ['format', 'status'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    }),
    makeCounterProvider({
      name: TOKEN_REFRESHES,
      help: 'OAuth connection token refreshes, by result',
      labelNames: ['result'],
    }),
  ],
  exports: [ConnectorMetrics],
})
export class ConnectorMetricsModule {}
