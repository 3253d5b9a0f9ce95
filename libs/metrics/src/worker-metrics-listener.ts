import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { BaseEnv } from '@app/config';
import { toErrorBody } from '@app/errors';
import { MetricsExposition } from './metrics-exposition';

/** The API's liveness path (@app/health): a probe configured for either finds it. */
const LIVENESS_PATH = '/health/live';
const LIVE = JSON.stringify({ status: 'ok' });
const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * A worker-only process serves no HTTP, so its own counters (deliveries, extractions, refreshes) would
 * never be scraped: with METRICS_PORT set, it answers GET /metrics there, and GET /health/live for the
 * pod's liveness probe (an answer at all says the event loop turns), and nothing else.
 */
@Injectable()
export class WorkerMetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    private readonly exposition: MetricsExposition,
    private readonly env: BaseEnv,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.env.METRICS_PORT;
    if (port === undefined || port === null) return;
    this.server = createServer((req, res) => void this.answer(req, res));
    // At BIND_ADDRESS when it is set, as the services' own ports (every interface otherwise).
    const listening = (resolve: () => void) =>
      this.env.BIND_ADDRESS
        ? this.server!.listen(port, this.env.BIND_ADDRESS, resolve)
        : this.server!.listen(port, resolve);
    await new Promise<void>((resolve, reject) => listening(resolve).once('error', reject));
    this.logger.log({ port: (this.server.address() as AddressInfo).port }, 'metrics served on METRICS_PORT');
  }

  /** The port actually bound (METRICS_PORT=0 picks a free one). */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  /** The address bound: BIND_ADDRESS, or every interface. */
  get address(): string | undefined {
    return (this.server?.address() as AddressInfo | null)?.address;
  }

  async onApplicationShutdown(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.method === 'GET' ? req.url?.split('?')[0] : undefined;
    if (path === LIVENESS_PATH) return void res.writeHead(200, JSON_TYPE).end(LIVE);
    if (path !== '/metrics') return void res.writeHead(404).end();
    try {
      this.exposition.assertAllowed(req.headers.authorization);
    } catch (error) {
      return void res.writeHead(401, JSON_TYPE).end(JSON.stringify(toErrorBody(error)));
    }
    try {
      res.writeHead(200, { 'content-type': this.exposition.contentType }).end(await this.exposition.render());
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
    }
  }
}
