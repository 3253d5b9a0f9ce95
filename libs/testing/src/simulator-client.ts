import type { INestApplication } from '@nestjs/common';
import axios, { AxiosInstance } from 'axios';
import { Agent } from 'node:http';

/** A document-system simulator as tests reach it: over HTTP, through its admin API. */
export interface SimulatorClient {
  /** Base URL: the instance URL of its document API and its OAuth host. */
  url: string;
  admin: AxiosInstance;
  /** An access token straight from the admin API (no OAuth dance). */
  accessToken(ttlSeconds?: number): Promise<string>;
  folderId(path: string): Promise<string>;
}

/** A simulator a test started in its own process (the simulator's test/support/start-simulator.ts). */
export interface RunningSimulator extends SimulatorClient {
  app: INestApplication;
  close(): Promise<void>;
}

export function simulatorClient(url: string): SimulatorClient {
  // An agent of its own: a simulator restarted on the same port must not get a pooled socket of the last one.
  const admin = axios.create({ baseURL: `${url}/admin`, timeout: 10_000, httpAgent: new Agent({ keepAlive: false }) });
  return {
    url,
    admin,
    accessToken: async (ttlSeconds = 3600) =>
      (await admin.post('/tokens', { subject: 'test', ttlSeconds })).data.accessToken,
    folderId: async (path) => (await admin.get('/folders', { params: { path } })).data.id,
  };
}
