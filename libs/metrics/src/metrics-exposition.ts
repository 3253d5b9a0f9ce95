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
  private collectors: ScrapeCollector[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    env: BaseEnv,
  ) {
    this.token = env.METRICS_TOKEN || undefined;
  }

  readonly contentType = register.contentType;

  onApplicationBootstrap(): void {
    const found = this.discovery.getProviders().map((wrapper) => wrapper.instance as unknown);
    this.collectors = [
      ...new Set(found.filter((instance): instance is ScrapeCollector => instance instanceof ScrapeCollector)),
    ];
  }

  /** With METRICS_TOKEN set, a scrape must carry it as a bearer token (401 otherwise); without, /metrics is open. */
  assertAllowed(authorization: string | undefined): void {
    if (!this.token) return;
    const presented = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? '';
    if (!constantTimeEqual(presented, this.token))
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
