import { Redis } from 'ioredis';

interface WithConnector {
  connector?: { stream?: { destroyed?: boolean } };
}

const PROMPT = Symbol('promptDisconnect');

/**
 * Makes every ioredis connection's disconnect() end it at once, Bull's and the rate limiter's included (they
 * make their own). ioredis's own waits up to 2 s, on a timer that holds the process, for the socket to say it
 * closed, even a socket that has closed already (Redis was down and the client waits to reconnect) and never
 * says so again: a process whose Redis was down at its shutdown took 2 s more to exit. Applied once, when
 * this library is loaded; a cluster's disconnect() disconnects its nodes, so it gains too.
 */
export function promptDisconnects(): void {
  const prototype = Redis.prototype as Redis & { [PROMPT]?: true };
  if (prototype[PROMPT]) return;
  const disconnect = prototype.disconnect;
  prototype.disconnect = function (this: Redis, reconnect?: boolean) {
    const connector = (this as unknown as WithConnector).connector;
    if (connector?.stream?.destroyed) connector.stream = undefined;
    return disconnect.call(this, reconnect);
  };
  prototype[PROMPT] = true;
}
