import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { ProcessRole } from '@app/config';
import { configureHttpApp } from '@app/http';
import { testEnv } from '@app/testing';
import { AppModule } from '../../src/app.module';

export interface ConnectorTestApp {
  app: INestApplication;
  /** http://127.0.0.1:<port> of the listening app. */
  url: string;
  db: DataSource;
  close(): Promise<void>;
}

/** The connector-service on a real port, with its own Redis prefix, plain-http URLs allowed. */
export async function startConnectorApp(env: Record<string, unknown> = {}, role: ProcessRole = 'all'): Promise<ConnectorTestApp> {
  const app = await NestFactory.create(AppModule.forRoot({ role, env: testEnv({ ALLOW_INSECURE_URLS: true, ...env }) }), {
    bodyParser: false,
    logger: false,
    abortOnError: false,
  });
  configureHttpApp(app, { title: 'Connector service', description: 'test' });
  await app.listen(0, '127.0.0.1');
  const url = await app.getUrl();
  return { app, url: url.replace('[::1]', '127.0.0.1'), db: app.get(DataSource), close: () => app.close() };
}

/** Every text value stored in the connector schema, to prove a secret is never kept in plaintext. */
export async function allStoredText(db: DataSource): Promise<string> {
  const columns: Array<{ table_name: string; column_name: string }> = await db.query(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = 'connector' AND data_type IN ('text', 'character varying', 'jsonb', 'json')`,
  );
  const parts: string[] = [];
  for (const { table_name, column_name } of columns) {
    const rows: Array<{ v: string | null }> = await db.query(`SELECT "${column_name}"::text AS v FROM connector."${table_name}"`);
    parts.push(...rows.map((r) => r.v ?? ''));
  }
  return parts.join('\n');
}
