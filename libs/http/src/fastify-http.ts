import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { AppEnv, parseTrustProxy } from '@app/config';
import { bodyFor } from '@app/errors';
import { requestIdOf } from '@app/logging';
import { ROUTE_TEMPLATE } from '@app/metrics';
import { MAX_BODY_BYTES } from './body-limits';
import { refuseMalformedRequest } from './malformed-requests';

/** What Node's HTTP server does by default, which Fastify would otherwise change (no request deadline, 72 s keep-alive). */
const REQUEST_TIMEOUT_MS = 300_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Fastify answers 404 to a path parameter longer than this; ours are ids and signed tokens. */
const MAX_PARAM_LENGTH = 2_048;

/**
 * The HTTP adapter of an app served by Fastify: the body limit, TRUST_PROXY (Fastify takes it only when it
 * is built), Express's routing habits (any case, a trailing slash is the same path), requests served while
 * the app closes, and the contract's error body where Fastify or Node refuses a request before Nest sees it.
 */
export function fastifyAdapter(env: Pick<AppEnv, 'TRUST_PROXY'>): FastifyAdapter {
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  if (trustProxy === null) throw new Error('TRUST_PROXY is malformed');
  const adapter = new FastifyAdapter({
    bodyLimit: MAX_BODY_BYTES,
    trustProxy,
    // Fastify names each request before the logger sees it: by the logs' rule, not "req-1".
    genReqId: requestIdOf,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    routerOptions: { ignoreTrailingSlash: true, caseSensitive: false, maxParamLength: MAX_PARAM_LENGTH },
    return503OnClosing: false,
    frameworkErrors: (_error: unknown, _request: unknown, reply: FastifyReply) => malformedUrl(reply),
    clientErrorHandler: refuseMalformedRequest,
  });
  // The first hook, before Nest's middleware runs on Node's request: the route template for the metrics.
  adapter.getInstance().addHook('onRequest', (request, _reply, done) => {
    (request.raw as { [ROUTE_TEMPLATE]?: string })[ROUTE_TEMPLATE] = request.routeOptions.url;
    done();
  });
  return adapter;
}

function malformedUrl(reply: FastifyReply): void {
  void reply.code(400).send(bodyFor(400, 'BAD_REQUEST', 'The request URL is malformed'));
}
