import Bull from 'bull';
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { connectRedis, isCluster, keyPrefixOf, RedisConnection } from './redis-connection';

type ClientType = 'client' | 'subscriber' | 'bclient';

/** Bull's options for a connection: `url` as @nestjs/bull takes it, the rest as Bull does. */
export type QueueConnectionOptions = Bull.QueueOptions & { url?: string };

/**
 * Bull on a RedisConnection. On a single server Bull connects by URL (with TLS for rediss://). On a
 * cluster it takes its clients from `createClient`: the queues share one command and one subscriber
 * client, each has its own blocking one (Bull's documented pattern), and since Bull closes none of the
 * clients it did not make, `disconnect()` closes them once the queues are closed.
 */
export class QueueConnection {
  private readonly made: Array<Redis | Cluster> = [];
  private readonly shared = new Map<ClientType, Redis | Cluster>();

  constructor(private readonly connection: RedisConnection) {}

  options(prefix: string, redis: RedisOptions = {}): QueueConnectionOptions {
    if (!isCluster(this.connection)) {
      // Bull takes host, port, database and login from the URL, but not the TLS that rediss:// asks for.
      const tls = new URL(this.connection.url).protocol === 'rediss:' ? { tls: {} } : {};
      return { url: this.connection.url, prefix, redis: { retryStrategy: reconnectDelay, ...tls, ...redis } };
    }
    return { prefix: keyPrefixOf(this.connection, prefix), createClient: (type) => this.client(type, redis) };
  }

  /** A queue on this connection, built as @nestjs/bull builds one. */
  queue<T>(name: string, prefix: string, redis?: RedisOptions): Bull.Queue<T> {
    const { url, ...options } = this.options(prefix, redis);
    return url ? new Bull<T>(name, url, options) : new Bull<T>(name, options);
  }

  /** Closes the clients made for the queues; call it after closing them. */
  disconnect(): void {
    for (const client of this.made.splice(0)) client.disconnect();
    this.shared.clear();
  }

  private client(type: ClientType, redis: RedisOptions): Redis | Cluster {
    const reused = type !== 'bclient' && this.shared.get(type);
    if (reused) return reused;
    // What Bull's own clients get: its blocking and subscriber clients must wait, not give up, for Redis.
    const blocking = type === 'client' ? {} : { maxRetriesPerRequest: null };
    const client = connectRedis(this.connection, { enableReadyCheck: false, ...blocking, ...redis });
    if (type === 'subscriber') subscribeOneAtATime(client);
    this.made.push(client);
    if (type !== 'bclient') this.shared.set(type, client);
    return client;
  }
}

/**
 * The wait before a queue client's next try to reach Redis: ioredis's own (at most 2 s), which the services'
 * other clients keep. Bull's clients would wait e^n ms, up to 20 s: after an outage of 20 s, work stayed paused
 * 13 s after Redis was back.
 */
const reconnectDelay = (tries: number): number => Math.min(tries * 50, 2000);

/**
 * Each queue subscribes on the shared subscriber client as it starts. On a cluster, ioredis 5 sends a
 * (p)subscribe that comes while its subscriber connection is still shaking hands, and that connection's
 * ready check (INFO) then fails in subscriber mode, taking the subscriptions with it: a queue whose
 * subscription failed never starts processing (ioredis#2037, fixed in ioredis 6, which Bull 4 does not
 * use). So a (p)subscribe waits until the one before it has been answered.
 */
function subscribeOneAtATime(client: Redis | Cluster): void {
  let previous: Promise<unknown> = Promise.resolve();
  for (const name of ['subscribe', 'psubscribe'] as const) {
    const send = client[name].bind(client) as (...args: unknown[]) => Promise<unknown>;
    const queued = (...args: unknown[]) => {
      const sent = previous.catch(() => undefined).then(() => send(...args));
      previous = sent;
      return sent;
    };
    Object.assign(client, { [name]: queued });
  }
}
