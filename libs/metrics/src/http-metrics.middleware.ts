import { Injectable, NestMiddleware } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { NextFunction, Request, Response } from 'express';
import type { Histogram } from 'prom-client';

export const HTTP_REQUEST_DURATION = 'http_request_duration_seconds';

/**
 * Times every request by its route TEMPLATE (`/v1/approvals/:id`), never its path: ids and user input
 * stay out of the labels. A request no route matched is `unmatched`.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(
    @InjectMetric(HTTP_REQUEST_DURATION) private readonly duration: Histogram<'method' | 'route' | 'status_code'>,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const stop = this.duration.startTimer();
    res.once('finish', () =>
      stop({ method: methodLabel(req.method), route: routeTemplate(req, res), status_code: String(res.statusCode) }),
    );
    next();
  }
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const methodLabel = (method: string) => (METHODS.has(method) ? method : 'OTHER');

/** Nest's catch-all that answers 404 for any path no controller has. */
const NOT_FOUND_ROUTE = '/{*path}';

/** A middleware that answers by itself (no route) may name its route here: `res.locals[METRICS_ROUTE]`. */
export const METRICS_ROUTE = 'metricsRoute';

/**
 * Where a Fastify app's requests carry their route template, since Nest's middleware sees only Node's
 * request there (set by an onRequest hook of `fastifyAdapter`; a request no route matched has none).
 */
export const ROUTE_TEMPLATE = Symbol.for('app.routeTemplate');

type MarkedRequest = Request & { [ROUTE_TEMPLATE]?: unknown };

function routeTemplate(req: MarkedRequest, res: Response): string {
  const named: unknown = res.locals?.[METRICS_ROUTE];
  if (typeof named === 'string') return named;
  if (typeof req[ROUTE_TEMPLATE] === 'string') return req[ROUTE_TEMPLATE];
  const path: unknown = req.route?.path;
  if (path === NOT_FOUND_ROUTE) return 'unmatched';
  if (typeof path === 'string') return `${req.baseUrl ?? ''}${path}` || '/';
  // A router mounted at a fixed path (the queue dashboard) that answered without a route of its own.
  return req.baseUrl ? `${req.baseUrl}/*` : 'unmatched';
}
