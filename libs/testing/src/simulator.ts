import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import axios, { AxiosInstance } from 'axios';
import { Agent } from 'node:http';
import { configureHttpApp } from '@app/http';
import { AppModule } from '../../../apps/document-system-simulator/src/app.module';

export interface RunningSimulator {
  app: INestApplication;
  /** Base URL: the instance URL of its document API and its OAuth host. */
  url: string;
  admin: AxiosInstance;
  /** An access token straight from the admin API (no OAuth dance). */
  accessToken(ttlSeconds?: number): Promise<string>;
  folderId(path: string): Promise<string>;
  close(): Promise<void>;
}

export interface SimulatorStartOptions {
  /** Extra environment, e.g. `SIMULATOR_STATE_FILE` to keep its state across a restart. */
  env?: Record<string, unknown>;
  /** Listen on this port (default: any free one), e.g. that of a simulator started before. */
  port?: number;
}

/** The document-system simulator on a loopback port, with its seeded project. */
export async function startSimulator(options: SimulatorStartOptions = {}): Promise<RunningSimulator> {
  const app = await NestFactory.create(AppModule.forRoot({ env: { LOG_LEVEL: 'silent', ...options.env } }), {
    bodyParser: false,
    logger: false,
    abortOnError: false,
  });
  configureHttpApp(app, { title: 'Document-system simulator', description: 'test' });
  await app.listen(options.port ?? 0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  // An agent of its own: a simulator restarted on the same port must not get a pooled socket of the last one.
  const admin = axios.create({ baseURL: `${url}/admin`, timeout: 10_000, httpAgent: new Agent({ keepAlive: false }) });
  return {
    app,
    url,
    admin,
    accessToken: async (ttlSeconds = 3600) =>
      (await admin.post('/tokens', { subject: 'test', ttlSeconds })).data.accessToken,
    folderId: async (path) => (await admin.get('/folders', { params: { path } })).data.id,
    close: () => app.close(),
  };
}
