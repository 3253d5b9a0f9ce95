import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { REQUEST_METHOD_MAP } from '@nestjs/core/helpers/router-method-factory';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { json, urlencoded } from 'express';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { AppEnv } from '@app/config';
import { AllExceptionsFilter, isBodyReadingError, strictValidationPipe, toErrorBody } from '@app/errors';
import { MAX_BODY } from './body-limits';
import { acceptFastifyBodies } from './fastify-bodies';
import { refuseMalformedRequest } from './malformed-requests';
import { completeOpenApiDocument } from './openapi-document';
import { shutDownInOrder } from './shutdown-grace';
import { trustProxies } from './trust-proxy';
import { refuseUnreadBody } from './unread-bodies';

export interface HttpAppOptions {
  title: string;
  description: string;
  version?: string;
}

/**
 * Everything an app's HTTP side needs, on Express or Fastify, applied identically in production and in e2e tests: body limit,
 * strict validation, the error filter, OpenAPI at /docs, and a shutdown on SIGTERM that drains before Nest's hooks run.
 */
export function configureHttpApp(app: INestApplication, options: HttpAppOptions): void {
  enableCors(app);
  if (app.getHttpAdapter().getType() === 'fastify') acceptFastifyBodies(app as NestFastifyApplication);
  else configureExpress(app as NestExpressApplication);
  app.useGlobalPipes(strictValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter());
  shutDownInOrder(app);

  SwaggerModule.setup('docs', app, openApiDocumentOf(app, options), { jsonDocumentUrl: 'docs/openapi.json' });
}

/** Express's body parsers, their errors as the contract's, TRUST_PROXY (Fastify takes it in fastifyAdapter). */
function configureExpress(express: NestExpressApplication): void {
  readBodiesInRoutes(express, [
    json({ limit: MAX_BODY }),
    urlencoded({ limit: MAX_BODY, extended: false }),
    refuseUnreadBody,
    bodyParserErrors,
  ]);
  express.disable('x-powered-by');
  trustProxies(express);
  // Node answers what its parser refuses with a bare status line unless someone listens: the contract's body, as on Fastify.
  express.getHttpServer().on('clientError', refuseMalformedRequest);
}

/**
 * Puts the parsers at the head of each route the adapter adds (Nest adds its routes at `init`), not on the app:
 * app-level handlers run before Nest's middleware, so a body refused there (413, 400) would reach neither the
 * request log nor the request metrics. In its route, it is logged and counted under the route, as on Fastify.
 */
function readBodiesInRoutes(
  express: NestExpressApplication,
  parsers: Array<RequestHandler | ErrorRequestHandler>,
): void {
  const adapter = express.getHttpAdapter() as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of Object.values(REQUEST_METHOD_MAP)) {
    const addRoute = adapter[method].bind(adapter);
    adapter[method] = (...args: unknown[]) => addRoute(...args.slice(0, -1), ...parsers, args.at(-1));
  }
}

/** The app's OpenAPI document as /docs serves it (`npm run lint` dumps and lints it). */
export function openApiDocumentOf(app: INestApplication, options: HttpAppOptions): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle(options.title)
      .setDescription(options.description)
      .setVersion(options.version ?? '1.0')
      .addBearerAuth()
      .build(),
  );
  return completeOpenApiDocument(document);
}

/** CORS only for the origins listed in CORS_ORIGINS (the console calling another service); none by default. */
function enableCors(app: INestApplication): void {
  const origins = app
    .get(AppEnv, { strict: false })
    .CORS_ORIGINS.split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  if (!origins.length) return;
  app.enableCors({
    origin: origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type'],
    exposedHeaders: ['X-Next-Cursor', 'Link'],
    maxAge: 600,
    // Fastify's CORS would refuse an OPTIONS without a preflight's headers in plain text; Express's answers 204.
    ...(app.getHttpAdapter().getType() === 'fastify' ? { strictPreflight: false } : {}),
  });
}

/** Body-parser refusals (too large, malformed JSON, not inflating, unread) answered before Nest makes them a 400. */
function bodyParserErrors(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  const body = isBodyReadingError(error) ? toErrorBody(error) : null;
  if (body) res.status(body.statusCode).json(body);
  else next(error);
}

/** Listens on PORT, at BIND_ADDRESS when it is set (every interface otherwise). */
export async function listen(app: INestApplication, env: Pick<AppEnv, 'PORT' | 'BIND_ADDRESS'>): Promise<void> {
  if (env.BIND_ADDRESS) return void (await app.listen(env.PORT, env.BIND_ADDRESS));
  if (app.getHttpAdapter().getType() !== 'fastify') return void (await app.listen(env.PORT));
  // Fastify alone would listen on localhost only, where nothing outside a container reaches it; Node's
  // default (Express's) is every interface: IPv6 and IPv4 at '::', IPv4 alone where there is no IPv6.
  try {
    await app.listen(env.PORT, '::');
  } catch (error) {
    if (!['EAFNOSUPPORT', 'EADDRNOTAVAIL'].includes(String((error as { code?: unknown }).code))) throw error;
    await app.listen(env.PORT, '0.0.0.0');
  }
}
