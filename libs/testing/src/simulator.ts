import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import axios, { AxiosInstance } from 'axios';
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

/** The document-system simulator on a loopback port, with its seeded project. */
export async function startSimulator(): Promise<RunningSimulator> {
  const app = await NestFactory.create(AppModule.forRoot({ env: { LOG_LEVEL: 'silent' } }), { bodyParser: false, logger: false, abortOnError: false });
  configureHttpApp(app, { title: 'Document-system simulator', description: 'test' });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const admin = axios.create({ baseURL: `${url}/admin`, timeout: 10_000 });
  return {
    app,
    url,
    admin,
    accessToken: async (ttlSeconds = 3600) => (await admin.post('/tokens', { subject: 'test', ttlSeconds })).data.accessToken,
    folderId: async (path) => (await admin.get('/folders', { params: { path } })).data.id,
    close: () => app.close(),
  };
}
