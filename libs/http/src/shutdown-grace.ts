import { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { AppEnv } from '@app/config';

/** How often idle connections are closed while the server closes. */
const IDLE_SWEEP_MS = 100;

/**
 * When the app closes its HTTP server (app.close(), which SIGTERM runs), on Express or Fastify alike: no new
 * connection is taken, a request in flight has SHUTDOWN_GRACE_MS to finish, then every connection still
 * open is closed. Node's close waits for each connection to end, so a client that stopped reading a
 * download would otherwise hold the close, and the hooks after it, until the process is killed.
 */
export function closeConnectionsAfterGrace(app: INestApplication): void {
  const graceMs = app.get(AppEnv, { strict: false }).SHUTDOWN_GRACE_MS;
  const adapter = app.getHttpAdapter();
  // Nest has no hook at the moment the server stops taking connections: the deadline starts in its close.
  const close = adapter.close.bind(adapter);
  adapter.close = async () => {
    const server: Server = app.getHttpServer();
    // Node closes the idle connections once, as the close starts: one whose request ends later would stay
    // open until its keep-alive timeout.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    try {
      return await close();
    } finally {
      clearInterval(sweep);
      clearTimeout(deadline);
    }
  };
}
