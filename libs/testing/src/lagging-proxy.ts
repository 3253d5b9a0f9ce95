import { createServer, connect, Server, Socket } from 'node:net';

/**
 * A TCP proxy on loopback that holds back, by `lagMs`, what a client sends once a chunk of it matches
 * `lags` (later chunks of that connection wait behind it, as on a slow link). What it holds when the client
 * goes away is dropped: it stands for writes that had not left a process when it died.
 */
export class LaggingProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly lagging = new Set<NodeJS.Timeout>();

  constructor(
    private readonly target: { host: string; port: number },
    private readonly lags: (chunk: Buffer) => boolean,
    private readonly lagMs: number,
  ) {}

  get port(): number {
    const address = this.server?.address();
    if (!address || typeof address === 'string') throw new Error('the proxy is not listening');
    return address.port;
  }

  async start(): Promise<this> {
    this.server = createServer((client) => this.relay(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.sockets.forEach((socket) => socket.destroy());
    this.lagging.forEach((timer) => clearTimeout(timer));
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private lag(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.lagging.delete(timer);
        resolve();
      }, this.lagMs);
      this.lagging.add(timer);
    });
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    upstream.pipe(client);
    let queue = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      const lag = this.lags(chunk);
      queue = queue.then(async () => {
        const gone = () => client.readableEnded || client.destroyed || upstream.destroyed;
        if (lag && !gone()) await this.lag();
        if (!gone()) upstream.write(chunk);
      });
    });
  }
}
