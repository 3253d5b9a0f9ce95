import { Controller, Get, Headers, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PrometheusController } from '@willsoto/nestjs-prometheus';
import type { Response } from 'express';
import { Public } from '@app/auth';
import { AnyQueryParameters } from '@app/errors';
import { MetricsExposition } from './metrics-exposition';

/** GET /metrics for Prometheus: no platform token (a scraper has none); METRICS_TOKEN, or METRICS_PUBLIC=true. */
@ApiExcludeController()
@Public()
@AnyQueryParameters()
@Controller()
export class MetricsController extends PrometheusController {
  constructor(private readonly exposition: MetricsExposition) {
    super();
  }

  @Get()
  async index(
    @Res({ passthrough: true }) res: Response,
    @Headers('authorization') authorization?: string,
  ): Promise<string> {
    this.exposition.assertAllowed(authorization);
    res.header('Content-Type', this.exposition.contentType);
    return this.exposition.render();
  }
}
