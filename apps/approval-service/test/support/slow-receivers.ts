import { createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A receiver that takes the request and answers one byte at a time, never finishing: the status line,
 * then a header without end. An inactivity timer never fires on it; only a wall-clock deadline does.
 * With `bodyOnly`, the status line and headers go at once and only the body trickles.
 */
export class TricklingReceiver {
  readonly connections = new Set<Socket>();
  private server?: Server;

  constructor(
    private readonly everyMs: number,
    private readonly bodyOnly = false,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((socket) => {
      this.connections.add(socket);
      const bytes = Buffer.from('HTTP/1.1 200 OK\r\nX-Slow: ');
      let sent = 0;
      if (this.bodyOnly) {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n');
        sent = bytes.length;
      }
      const timer = setInterval(
        () => socket.write(sent < bytes.length ? bytes.subarray(sent, ++sent) : this.bodyOnly ? '1\r\na\r\n' : 'a'),
        this.everyMs,
      );
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        this.connections.delete(socket);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
