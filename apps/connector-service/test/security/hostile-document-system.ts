import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How one file of the hostile system answers its content request. */
export type HostileContent =
  | { kind: 'bytes'; body: Buffer }
  /** Chunked, no Content-Length, one byte every `everyMs`, never ending. */
  | { kind: 'trickle'; everyMs: number }
  /** Chunked, no Content-Length: `bytes` bytes whatever the listing said. */
  | { kind: 'unannounced'; bytes: number };

export interface HostileFile {
  id: string;
  name: string;
  /** The size the listing claims. */
  listedSize: number;
  content: HostileContent;
}

export interface HostileFolder {
  id: string;
  name: string;
  files: HostileFile[];
}

/**
 * Just enough of CONTRACT.md's document-system API (session, workgroups, children, content) to misbehave
 * on purpose: endless content, sizes that lie, listings of any size. Any bearer and login is accepted.
 */
export class HostileDocumentSystem {
  /** Pathnames (and queries) of every request, in order. */
  readonly requests: string[] = [];
  /** When set, the workgroups answer carries this many bytes of trailing whitespace (valid JSON). */
  workgroupsPadding = 0;
  private server?: Server;
  private readonly open = new Set<ServerResponse>();

  constructor(readonly folders: HostileFolder[]) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.answer(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    this.requests.push(req.url ?? '');
    req.resume();
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'POST' && path === '/api/v1/session')
      return json(res, { sessionToken: 'hostile-session', expiresIn: 600 });
    if (path === '/api/v1/workgroups') return this.workgroups(res);
    const children = /^\/api\/v1\/folders\/([^/]+)\/children$/.exec(path);
    if (children) return this.children(decodeURIComponent(children[1]), res);
    const content = /^\/api\/v1\/files\/([^/]+)\/content$/.exec(path);
    if (content) return this.content(decodeURIComponent(content[1]), res);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
  }

  private workgroups(res: ServerResponse): void {
    const body = JSON.stringify({
      items: this.folders.map((f) => ({ id: `wg-${f.id}`, name: f.name, rootFolderId: f.id })),
      nextCursor: null,
    });
    if (!this.workgroupsPadding) return json(res, body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(body);
    const chunk = Buffer.alloc(1024 * 1024, ' ');
    let left = this.workgroupsPadding;
    const pump = () => {
      while (left > 0) {
        left -= chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('error', () => undefined);
    pump();
  }

  private children(folderId: string, res: ServerResponse): void {
    const folder = this.folders.find((f) => f.id === folderId);
    if (!folder) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    const items = folder.files.map((f) => ({
      kind: 'file',
      id: f.id,
      name: f.name,
      parentId: folder.id,
      size: f.listedSize,
      mimeType: 'application/octet-stream',
      version: '1',
    }));
    json(res, { items, nextCursor: null });
  }

  private content(fileId: string, res: ServerResponse): void {
    const file = this.folders.flatMap((f) => f.files).find((f) => f.id === fileId);
    if (!file) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    const { content } = file;
    if (content.kind === 'bytes')
      return void res
        .writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(content.body.length) })
        .end(content.body);
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.on('error', () => undefined);
    if (content.kind === 'unannounced') return void res.end(Buffer.alloc(content.bytes, 'x'));
    this.open.add(res);
    const timer = setInterval(() => res.write('x'), content.everyMs);
    res.on('close', () => {
      clearInterval(timer);
      this.open.delete(res);
    });
  }
}

function json(res: ServerResponse, body: unknown): void {
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(typeof body === 'string' ? body : JSON.stringify(body));
}
