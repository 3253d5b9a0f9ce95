import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { register } from 'prom-client';
import { BaseEnv } from '@app/config';
import { constantTimeEqual } from '@app/crypto';
import { DomainException } from '@app/errors';
import { COLLECT_TIMEOUT_MS, ScrapeCollector, withTimeout } from './scrape-collector';

/** The registry's text, after every ScrapeCollector of the app had its turn; and who may read it. */
@Injectable()
export class MetricsExposition implements OnApplicationBootstrap {
  private readonly logger = new Logger('Metrics');
  private readonly token?: string;
  /** Opened by the operator (METRICS_PUBLIC=true, no METRICS_TOKEN); closed otherwise. */
  private readonly open: boolean;
  private collectors: ScrapeCollector[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    env: BaseEnv,
  ) {
    this.token = env.METRICS_TOKEN || undefined;
    this.open = !this.token && env.METRICS_PUBLIC === true;
  }

  readonly contentType = register.contentType;

  onApplicationBootstrap(): void {
    const found = this.discovery.getProviders().map((wrapper) => wrapper.instance as unknown);
    this.collectors = [
      ...new Set(found.filter((instance): instance is ScrapeCollector => instance instanceof ScrapeCollector)),
    ];
    if (!this.token && !this.open)
      this.logger.log('GET /metrics answers 401 to everyone: set METRICS_TOKEN, or METRICS_PUBLIC=true to open it');
  }

  /**
   * A scrape must carry METRICS_TOKEN as a bearer token; without one configured, /metrics is closed to
   * everyone unless METRICS_PUBLIC=true. Either refusal is the same 401, naming no setting.
   */
  assertAllowed(authorization: string | undefined): void {
    if (this.open) return;
    const presented = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? '';
    if (!this.token || !constantTimeEqual(presented, this.token))
      throw new DomainException(401, 'UNAUTHENTICATED', 'The metrics token is required');
  }

  async render(): Promise<string> {
    await Promise.all(
      this.collectors.map((collector) =>
        withTimeout(collector.collect(), COLLECT_TIMEOUT_MS, collector.constructor.name).catch((error: Error) =>
          this.logger.warn({ error: error.message }, 'metrics collector skipped'),
        ),
      ),
    );
    return register.metrics();
  }
}
