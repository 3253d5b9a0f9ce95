import { INestApplication, Logger, ShutdownSignal } from '@nestjs/common';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppEnv } from '@app/config';
import { ServingState } from './serving-state';

/** How often idle connections are closed while the server closes. */
const IDLE_SWEEP_MS = 100;
/** The signals Nest's enableShutdownHooks() listens to, which this shutdown takes over. */
const SHUTDOWN_SIGNALS = Object.values(ShutdownSignal);

/**
 * The app's shutdown, on a shutdown signal (SIGTERM) or app.close(), in the order that loses no request in a
 * rolling deploy: readiness answers 503 at once while the server goes on serving for SHUTDOWN_DRAIN_MS (on a
 * signal), so load balancers stop sending to it; then the server takes no new connection and requests in
 * flight get SHUTDOWN_GRACE_MS; only then do Nest's hooks close what those requests use (queues, agents, pools).
 * Nest's own order runs onModuleDestroy first, under the requests still running, with the server open.
 * ServingState notes when a signal began it: a hook may give work in flight until SHUTDOWN_GRACE_MS after
 * it (inside the drain and grace an API pod's budget counts), where app.close() cuts it at once.
 */
export function shutDownInOrder(app: INestApplication): void {
  const env = app.get(AppEnv, { strict: false });
  const serving = servingStateOf(app);
  const closeServer = closeServerWithinGrace(app, env.SHUTDOWN_GRACE_MS);
  // Nest's own close, which takes the signal to hand its shutdown hooks though its public type does not say so.
  const nestClose = (Object.getPrototypeOf(app) as { close: (signal?: string) => Promise<void> }).close;
  let closing: Promise<void> | undefined;
  const shutDown = (signal?: string) =>
    (closing ??= (async () => {
      try {
        serving?.beginShutdown(signal);
        const server: Server = app.getHttpServer();
        // Only a signal has load balancers to tell; app.close() (tests, a failed start) stops at once.
        if (signal && server.listening && env.SHUTDOWN_DRAIN_MS > 0) {
          new Logger('Shutdown').log(`${signal}: not ready, serving ${env.SHUTDOWN_DRAIN_MS} ms more before closing`);
          await sleep(env.SHUTDOWN_DRAIN_MS);
        }
        serving?.serverCloses();
        await closeServer();
        await nestClose.call(app, signal);
      } finally {
        stopListening();
      }
    })());
  const stopListening = onShutdownSignal(shutDown);
  // NestFactory's proxy drops assignments to the app; a property defined on it lands on the app itself.
  Object.defineProperty(app, 'close', { value: () => shutDown(), configurable: true, writable: true });
}

/**
 * The HTTP server's close, on Express or Fastify alike, made the adapter's (Nest calls it again after its
 * hooks, when it is done): no new connection is taken, a request in flight has `graceMs` to finish, then
 * every connection still open is closed. Node's close waits for each connection to end, so a client that
 * stopped reading a download would otherwise hold the close, and the hooks after it, until the process is killed.
 */
function closeServerWithinGrace(app: INestApplication, graceMs: number): () => Promise<void> {
  const adapter = app.getHttpAdapter();
  const close = adapter.close.bind(adapter);
  let closed: Promise<void> | undefined;
  adapter.close = () =>
    (closed ??= (async () => {
      const server: Server = app.getHttpServer();
      // Node closes the idle connections once, as the close starts: one whose request ends later would stay
      // open until its keep-alive timeout.
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
      try {
        await close();
      } finally {
        clearInterval(sweep);
        clearTimeout(deadline);
      }
    })());
  return () => adapter.close();
}

/**
 * Runs `shutDown` on the first shutdown signal (a second one, while it runs, is ignored), then raises the
 * signal again with no listener left, so the process ends as the signal asks; as Nest's own handler does.
 */
function onShutdownSignal(shutDown: (signal: string) => Promise<void>): () => void {
  let received = false;
  const handle = (signal: NodeJS.Signals) => {
    if (received) return;
    received = true;
    shutDown(signal).then(
      () => process.kill(process.pid, signal),
      (error: Error) => {
        new Logger('Shutdown').error(`Shutdown failed: ${error.message}`, error.stack);
        process.exit(1);
      },
    );
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, handle);
  return () => SHUTDOWN_SIGNALS.forEach((signal) => process.removeListener(signal, handle));
}

/** The app's ServingState; an app without the health module has none, and no readiness to report. */
function servingStateOf(app: INestApplication): ServingState | undefined {
  try {
    return app.get(ServingState, { strict: false });
  } catch {
    return undefined;
  }
}
