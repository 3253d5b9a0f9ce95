import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How one file of the hostile system answers its content request. */
export type HostileContent =
  | { kind: 'bytes'; body: Buffer }
  /** Chunked, no Content-Length, one byte every `everyMs`, never ending. */
  | { kind: 'trickle'; everyMs: number }
  /** Chunked, no Content-Length: `bytes` bytes whatever the listing said. */
  | { kind: 'unannounced'; bytes: number }
  /** Chunked, no Content-Length: `chunk` bytes every 100 ms until `bytes` were sent (Infinity: never ending). */
  | { kind: 'paced'; chunk: number; bytes: number };

export interface HostileFile {
  id: string;
  name: string;
  /** The size the listing claims; none when undefined. */
  listedSize?: number;
  /** The version the listing gives; null: none (nor a time or checksum), so nothing tells one download from the next. */
  version?: string | null;
  /**
   * How many content requests are answered a 404 that is not the document system's (a proxy's page: no
   * `not_found`, so not "gone") before the content is.
   */
  strayNotFoundFirst?: number;
  /** The Content-Type its content is answered with (default `application/octet-stream`). */
  contentType?: string;
  content: HostileContent;
}

export interface HostileFolder {
  id: string;
  name: string;
  files: HostileFile[];
}

/** A listing answered by the test instead: the body (an object, or bytes sent as they are), or undefined for the default. */
export type ListingOverride = (
  what: { workgroups: true } | { folderId: string },
  cursor: string | null,
) => unknown | Buffer | undefined | Promise<unknown>;

/**
 * Just enough of CONTRACT.md's document-system API (session, workgroups, children, content) to misbehave
 * on purpose: endless content, sizes that lie, listings of any size. Any bearer and login is accepted.
 */
export class HostileDocumentSystem {
  /** Pathnames (and queries) of every request, in order. */
  readonly requests: string[] = [];
  /** When set, the workgroups answer carries this many bytes of trailing whitespace (valid JSON). */
  workgroupsPadding = 0;
  /** When set, answers the listings it returns a body for. */
  listings?: ListingOverride;
  /** Folders whose listings another server answers (an HTML 404: a proxy, a wrong path), not the document system. */
  readonly strayNotFoundListings = new Set<string>();
  /** Each content request: when it came and when its answer ended or was dropped. */
  readonly downloads: Array<{ fileId: string; startedAt: number; endedAt?: number }> = [];
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
    const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
    const children = /^\/api\/v1\/folders\/([^/]+)\/children$/.exec(path);
    const what =
      path === '/api/v1/workgroups'
        ? { workgroups: true as const }
        : children
          ? { folderId: decodeURIComponent(children[1]) }
          : null;
    if (children && this.strayNotFoundListings.has(decodeURIComponent(children[1])))
      return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><h1>Not Found</h1></html>');
    if (what && this.listings)
      return void Promise.resolve(this.listings(what, cursor)).then((body) =>
        body === undefined ? this.listing(what, res) : json(res, body),
      );
    if (what) return this.listing(what, res);
    const content = /^\/api\/v1\/files\/([^/]+)\/content$/.exec(path);
    if (content) return this.content(decodeURIComponent(content[1]), res);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
  }

  private listing(what: { workgroups: true } | { folderId: string }, res: ServerResponse): void {
    if ('folderId' in what) return this.children(what.folderId, res);
    this.workgroups(res);
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
      ...(f.version === null ? {} : { version: f.version ?? '1' }),
    }));
    json(res, { items, nextCursor: null });
  }

  private content(fileId: string, res: ServerResponse): void {
    const file = this.folders.flatMap((f) => f.files).find((f) => f.id === fileId);
    if (!file) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    if (file.strayNotFoundFirst) {
      file.strayNotFoundFirst -= 1;
      return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not Found</html>');
    }
    const { content } = file;
    const download: { fileId: string; startedAt: number; endedAt?: number } = { fileId, startedAt: Date.now() };
    this.downloads.push(download);
    res.on('close', () => (download.endedAt = Date.now()));
    const contentType = file.contentType ?? 'application/octet-stream';
    if (content.kind === 'bytes')
      return void res
        .writeHead(200, { 'content-type': contentType, 'content-length': String(content.body.length) })
        .end(content.body);
    res.writeHead(200, { 'content-type': contentType });
    res.on('error', () => undefined);
    if (content.kind === 'unannounced') return void res.end(Buffer.alloc(content.bytes, 'x'));
    this.open.add(res);
    let sent = 0;
    const timer =
      content.kind === 'trickle'
        ? setInterval(() => res.write('x'), content.everyMs)
        : setInterval(() => {
            const chunk = Math.min(content.chunk, content.bytes - sent);
            sent += chunk;
            if (sent >= content.bytes) res.end(Buffer.alloc(chunk, 'p'));
            else res.write(Buffer.alloc(chunk, 'p'));
          }, 100);
    res.on('close', () => {
      clearInterval(timer);
      this.open.delete(res);
    });
  }
}

function json(res: ServerResponse, body: unknown): void {
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
}
