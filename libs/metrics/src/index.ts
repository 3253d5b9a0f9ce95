export * from './metrics.module';
export * from './scrape-collector';
export * from './metrics-exposition';
export * from './worker-metrics-listener';
export { METRICS_ROUTE, ROUTE_TEMPLATE } from './http-metrics.middleware';
