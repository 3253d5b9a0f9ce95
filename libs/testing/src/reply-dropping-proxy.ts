import { connect, createServer, Server, Socket } from 'node:net';

/** PostgreSQL's ReadyForQuery message header: after it the statement has run, and committed outside a transaction. */
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

/** What the proxy does to the next statement whose message chunk matches. */
export type Drop =
  /** The statement runs and commits; its reply is lost with the connection (the server did it, the client never hears). */
  | { reply: true }
  /** The statement never reaches the server; `meanwhile` runs before the connection is cut. */
  | { reply: false; meanwhile?: () => Promise<void> };

/**
 * A TCP proxy between a service and PostgreSQL that, once armed, cuts the connection of the next statement
 * that `matches`: after its reply (the statement committed on the server, the client hears nothing) or
 * before the server sees it. Everything else passes untouched.
 */
export class ReplyDroppingProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private armed?: { matches: (chunk: Buffer) => boolean; drop: Drop; done: () => void };

  constructor(private readonly target: { host: string; port: number }) {}

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

  /** Arms the proxy for one statement; resolves once its connection has been cut. */
  dropNext(matches: (chunk: Buffer) => boolean, drop: Drop): Promise<void> {
    return new Promise((done) => (this.armed = { matches, drop, done }));
  }

  async stop(): Promise<void> {
    this.sockets.forEach((socket) => socket.destroy());
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    let cutting: (() => void) | undefined;
    let reply = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      if (!cutting) return void client.write(chunk);
      reply = Buffer.concat([reply, chunk]);
      if (reply.includes(READY_FOR_QUERY)) cutting();
    });
    let swallowing = false;
    client.on('data', (chunk: Buffer) => {
      if (swallowing) return; // the rest of a statement that never reaches the server
      const armed = this.armed;
      if (!armed || !armed.matches(chunk)) return void upstream.write(chunk);
      this.armed = undefined;
      const cut = () => {
        client.destroy();
        armed.done();
      };
      if (armed.drop.reply) {
        cutting = cut;
        upstream.write(chunk);
        return;
      }
      swallowing = true;
      void (armed.drop.meanwhile?.() ?? Promise.resolve()).then(cut, cut);
    });
  }
}
