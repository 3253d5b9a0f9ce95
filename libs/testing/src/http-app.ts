import type { INestApplication } from '@nestjs/common';
import { AbstractHttpAdapter, NestFactory } from '@nestjs/core';
import { createServer } from 'node:net';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { configureHttpApp } from '@app/http';
import type { OpenApiDocument } from './openapi-coverage';

/** Nest's own logger off, the body parsers left to configureHttpApp, a failure to start thrown (not exit). */
export const TEST_APP_OPTIONS = { bodyParser: false, logger: false, abortOnError: false } as const;

/**
 * An app module as production serves it (configureHttpApp), created but not started: on Express, or on
 * the adapter given (the approval-service's `fastifyAdapter(env)`).
 */
export async function createHttpApp(
  module: Parameters<typeof NestFactory.create>[0],
  title: string,
  adapter?: AbstractHttpAdapter,
) {
  const app = adapter
    ? await NestFactory.create(module, adapter, TEST_APP_OPTIONS)
    : await NestFactory.create(module, TEST_APP_OPTIONS);
  return configureTestApp(app, title);
}

/** What production adds to an app (the body policy, the error filter, the OpenAPI document at /docs). */
export function configureTestApp<T extends INestApplication>(app: T, title: string): T {
  configureHttpApp(app, { title, description: 'test' });
  return app;
}

/** Starts the app on loopback (`port`, or any free one) and gives its `http://127.0.0.1:<port>`. */
export async function listenOnLoopback(app: INestApplication, port = 0): Promise<string> {
  await app.listen(port, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

/** A loopback port free right now, for an app that must be started again on the same port. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((ready) => probe.listen(0, '127.0.0.1', ready));
  const { port } = probe.address() as { port: number };
  await new Promise((closed) => probe.close(closed));
  return port;
}

/**
 * For a describe block: the app built by `module` (called when the block starts) is initialised before its
 * tests and closed after them. Returns the app, for supertest.
 */
export function appUnderTest(
  module: () => Parameters<typeof NestFactory.create>[0],
  title: string,
  adapter?: () => AbstractHttpAdapter,
) {
  let app: INestApplication | undefined;
  beforeAll(async () => {
    app = await createHttpApp(module(), title, adapter?.());
    await app.init();
    // Fastify routes nothing until it is ready (listen would make it so; supertest does not listen).
    if (app.getHttpAdapter().getType() === 'fastify') await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app?.close());
  return (): INestApplication => {
    if (!app) throw new Error(`${title} did not start`);
    return app;
  };
}

/** The OpenAPI document the app serves at /docs/openapi.json. */
export async function openApiDocument(app: INestApplication): Promise<OpenApiDocument> {
  return (await request(app.getHttpServer()).get('/docs/openapi.json').expect(200)).body;
}

/** Every text value stored in a schema's tables, to prove a secret is never kept in plaintext. */
export async function allStoredText(db: DataSource, schema: string): Promise<string> {
  const columns: Array<{ table_name: string; column_name: string }> = await db.query(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = $1 AND data_type IN ('text', 'character varying', 'jsonb', 'json')`,
    [schema],
  );
  const parts: string[] = [];
  for (const { table_name, column_name } of columns) {
    const rows: Array<{ v: string | null }> = await db.query(
      `SELECT "${column_name}"::text AS v FROM "${schema}"."${table_name}"`,
    );
    parts.push(...rows.map((r) => r.v ?? ''));
  }
  return parts.join('\n');
}
