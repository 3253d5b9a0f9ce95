import { DynamicModule, Global, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import {
  makeCounterProvider,
  makeGaugeProvider,
  makeHistogramProvider,
  PrometheusModule,
} from '@willsoto/nestjs-prometheus';
import { collectDefaultMetrics, register } from 'prom-client';
import { ProcessRole } from '@app/config';
import { HTTP_REQUEST_DURATION, HttpMetricsMiddleware } from './http-metrics.middleware';
import { MetricsController } from './metrics.controller';
import { MetricsExposition } from './metrics-exposition';
import { QUEUE_COUNT_TIMEOUTS, QUEUE_JOBS, QueueDepthCollector } from './queue-depth.collector';
import { WorkerMetricsListener } from './worker-metrics-listener';

/**
 * Prometheus metrics of a service: GET /metrics (prom-client's registry, default process metrics on),
 * request durations by route template, and the depth of every Bull queue of the app. Global, so the
 * exposition is reachable from the exporter's controller and apps add their own collectors anywhere.
 */
@Global()
@Module({})
export class MetricsModule implements NestModule {
  static forRole(role: ProcessRole): DynamicModule {
    startDefaultMetrics();
    return {
      module: MetricsModule,
      imports: [
        DiscoveryModule,
        PrometheusModule.register({ controller: MetricsController, defaultMetrics: { enabled: false } }),
      ],
      providers: [
        MetricsExposition,
        QueueDepthCollector,
        ...(role === 'worker' ? [WorkerMetricsListener] : []),
        makeHistogramProvider({
          name: HTTP_REQUEST_DURATION,
          help: 'HTTP requests by method, route template and status code',
          labelNames: ['method', 'route', 'status_code'],
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        }),
        makeGaugeProvider({
          name: QUEUE_JOBS,
          help: 'Jobs per queue and state (waiting, active, delayed, failed), counted at scrape (with those waiting in a fair share)',
          labelNames: ['queue', 'state'],
        }),
        makeCounterProvider({
          name: QUEUE_COUNT_TIMEOUTS,
          help: 'Scrapes that left a queue out because Redis did not answer in time',
          labelNames: ['queue'],
        }),
      ],
      exports: [MetricsExposition],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes('*');
  }
}

/** Once per process: apps started side by side in one process (tests) share prom-client's registry. */
function startDefaultMetrics(): void {
  if (!register.getSingleMetric('process_cpu_user_seconds_total')) collectDefaultMetrics();
}
