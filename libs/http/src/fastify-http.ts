import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { parse as parseForm } from 'node:querystring';
import { AppEnv, parseTrustProxy } from '@app/config';
import { requestIdOf } from '@app/logging';
import { ROUTE_TEMPLATE } from '@app/metrics';
import { MAX_BODY_BYTES } from './body-limits';

type Done = (error: Error | null, body?: unknown) => void;

/** What Node's HTTP server does by default, which Fastify would otherwise change (no request deadline, 72 s keep-alive). */
const REQUEST_TIMEOUT_MS = 300_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Fastify answers 404 to a path parameter longer than this; ours are ids and signed tokens. */
const MAX_PARAM_LENGTH = 2_048;

/**
 * The HTTP adapter of an app served by Fastify: the body limit, TRUST_PROXY (Fastify takes it only when it
 * is built) and Express's routing habits (a trailing slash is the same path).
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
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
  });
  // The first hook, before Nest's middleware runs on Node's request: the route template for the metrics.
  adapter.getInstance().addHook('onRequest', (request, _reply, done) => {
    (request.raw as { [ROUTE_TEMPLATE]?: string })[ROUTE_TEMPLATE] = request.routeOptions.url;
    done();
  });
  return adapter;
}

/**
 * The bodies an app accepts, as the Express apps accept them: JSON objects and arrays (an empty body is
 * `{}`), HTML forms, and any other type read to the limit and ignored. A failure carries body-parser's
 * `type`, so the error filter answers it the same way on both adapters.
 */
export function acceptFastifyBodies(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const options = { parseAs: 'string' as const, bodyLimit: MAX_BODY_BYTES };
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', options, (_req: FastifyRequest, body: string, done: Done) => {
    try {
      done(null, parseJson(body));
    } catch {
      done(bodyError(400, 'entity.parse.failed'), undefined);
    }
  });
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    options,
    (_req: FastifyRequest, body: string, done: Done) => done(null, { ...parseForm(body) }),
  );
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_req, _body, done) =>
    done(null, undefined),
  );
}

/** body-parser's strict JSON: an object or an array, nothing else at the top level; an empty body is {}. */
function parseJson(text: string): unknown {
  const start = text.trimStart()[0];
  if (start === undefined) return {};
  if (start !== '{' && start !== '[') throw new SyntaxError('Only objects and arrays');
  return JSON.parse(text);
}

function bodyError(status: number, type: string): Error {
  return Object.assign(new Error('Request body refused'), { status, statusCode: status, type });
}
