import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import { PassThrough } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ProcessRole } from '@app/config';
import {
  allStoredText as storedText,
  configureTestApp,
  isolatedDatabase,
  listenOnLoopback,
  TEST_APP_OPTIONS,
  testEnv,
} from '@app/testing';
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
  const app = configureTestApp(moduleRef.createNestApplication(TEST_APP_OPTIONS), 'Connector service');
  if (options.logLines) app.useLogger(app.get(Logger));
  const url = await listenOnLoopback(app, options.port);
  return { app, env, url, db: app.get(DataSource), close: () => app.close() };
}

function logSink(lines: string[] | undefined): NodeJS.WritableStream | undefined {
  if (!lines) return undefined;
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  return sink;
}

/** Every text value stored in the connector schema, to prove a secret is never kept in plaintext. */
export const allStoredText = (db: DataSource) => storedText(db, 'connector');
