import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import { PassThrough } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ProcessRole } from '@app/config';
import { configureHttpApp } from '@app/http';
import { isolatedDatabase, testEnv } from '@app/testing';
import { AppModule } from '../../src/app.module';

export interface ConnectorTestApp {
  app: INestApplication;
  /** http://127.0.0.1:<port> of the listening app. */
  url: string;
  db: DataSource;
  /** The environment the app was started with (its database, Redis prefix, blob directory). */
  env: Record<string, unknown>;
  close(): Promise<void>;
}

export interface ConnectorAppOptions {
  env?: Record<string, unknown>;
  role?: ProcessRole;
  /** Provider overrides, e.g. `[[ConnectionTokens, tokensFromSimulator]]`. */
  overrides?: Array<[unknown, unknown]>;
  /** Collects every log line (the app's pino logger, at the env's LOG_LEVEL) into this array. */
  logLines?: string[];
  /** Listen on this port (default: any free one), e.g. one that PUBLIC_BASE_URL already names. */
  port?: number;
}

/** The connector-service on a real port, with its own database, Redis prefix and blob directory, plain-http URLs allowed. */
export async function startConnectorApp(
  envOrOptions: Record<string, unknown> | ConnectorAppOptions = {},
  role: ProcessRole = 'all',
): Promise<ConnectorTestApp> {
  const options: ConnectorAppOptions =
    'env' in envOrOptions || 'overrides' in envOrOptions || 'role' in envOrOptions || 'logLines' in envOrOptions
      ? (envOrOptions as ConnectorAppOptions)
      : { env: envOrOptions as Record<string, unknown>, role };
  // A database of its own: blobs are content-addressed per store, and one database means one store.
  const database = options.env?.DATABASE_URL ? {} : { DATABASE_URL: await isolatedDatabase() };
  const env = testEnv({
    ALLOW_INSECURE_URLS: true,
    BLOB_DIR: join(tmpdir(), `blobs-${randomBytes(6).toString('hex')}`),
    ...database,
    ...options.env,
  });
  let builder = Test.createTestingModule({
    imports: [AppModule.forRoot({ role: options.role ?? role, env, logDestination: logSink(options.logLines) })],
  });
  for (const [token, value] of options.overrides ?? []) builder = builder.overrideProvider(token).useValue(value);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, logger: false, abortOnError: false });
  if (options.logLines) app.useLogger(app.get(Logger));
  configureHttpApp(app, { title: 'Connector service', description: 'test' });
  await app.listen(options.port ?? 0, '127.0.0.1');
  const url = await app.getUrl();
  return { app, env, url: url.replace('[::1]', '127.0.0.1'), db: app.get(DataSource), close: () => app.close() };
}

function logSink(lines: string[] | undefined): NodeJS.WritableStream | undefined {
  if (!lines) return undefined;
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  return sink;
}

/** Every text value stored in the connector schema, to prove a secret is never kept in plaintext. */
export async function allStoredText(db: DataSource): Promise<string> {
  const columns: Array<{ table_name: string; column_name: string }> = await db.query(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = 'connector' AND data_type IN ('text', 'character varying', 'jsonb', 'json')`,
  );
  const parts: string[] = [];
  for (const { table_name, column_name } of columns) {
    const rows: Array<{ v: string | null }> = await db.query(
      `SELECT "${column_name}"::text AS v FROM connector."${table_name}"`,
    );
    parts.push(...rows.map((r) => r.v ?? ''));
  }
  return parts.join('\n');
}
