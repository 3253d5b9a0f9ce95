import { Module } from '@nestjs/common';
import { makeCounterProvider, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import {
  ApprovalMetrics,
  CALLBACK_DECISION,
  DECISIONS,
  DELIVERY_ATTEMPTS,
  DELIVERY_DURATION,
} from './approval-metrics';

@Module({
  providers: [
    ApprovalMetrics,
    makeCounterProvider({
      name: DELIVERY_ATTEMPTS,
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'],
    }),
    makeHistogramProvider({
      name: DELIVERY_DURATION,
      help: 'Webhook delivery attempt duration by outcome',
      labelNames: ['outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    }),
    makeCounterProvider({
      name: DECISIONS,
      help: 'Approval decisions by outcome, counted once published to the runtime (by the process that publishes it)',
      labelNames: ['outcome'],
    }),
    makeHistogramProvider({
      name: CALLBACK_DECISION,
      help: 'From a callback arriving to its decision published to the runtime',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    }),
  ],
  exports: [ApprovalMetrics],
})
export class ApprovalMetricsModule {}
