import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { SimulatorStore } from '../store/simulator-store';
import type { SimNode, SimUser } from '../store/sim-types';

const bearer = (req: Request) => /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];

/**
 * The document API of CONTRACT.md ("The document system"), mounted at the instance URL (this app's
 * base URL). Errors use the document system's own shape, `{error: "..."}`.
 */
@ApiTags('document API (simulated)')
@Controller('api/v1')
export class DocumentApiController {
  constructor(private readonly store: SimulatorStore) {}

  @Post('session')
  @ApiOperation({
    summary: 'Open a document-system session with a username and password',
    description: 'Needs a bearer access token; 401 invalid_token or invalid_credentials.',
  })
  @HttpCode(200)
  session(@Req() req: Request, @Body() body: { username?: unknown; password?: unknown }, @Res() res: Response) {
    if (!this.store.validAccessToken(bearer(req))) return res.status(401).json({ error: 'invalid_token' });
    const user = typeof body?.username === 'string' ? this.store.users.get(body.username) : undefined;
    if (!user || user.password !== body.password) return res.status(401).json({ error: 'invalid_credentials' });
    return res.json(this.store.openSession(user.username));
  }

  @Get('workgroups')
  @ApiOperation({
    summary: "List the workgroups the session's user may see, a page at a time",
    description: 'Needs a bearer access token and X-Session-Token; 401 invalid_token or invalid_session.',
  })
  workgroups(@Req() req: Request, @Query('cursor') cursor: string | undefined, @Res() res: Response) {
    const user = this.authorize(req, res);
    if (!user) return;
    const visible = this.store.workgroups.filter((w) => user.workgroupIds.includes(w.id));
    const offset = cursor ? Number(Buffer.from(cursor, 'base64url').toString()) || 0 : 0;
    const next = offset + this.store.pageSize;
    res.json({
      items: visible.slice(offset, next).map(({ id, name, rootFolderId }) => ({ id, name, rootFolderId })),
      nextCursor: next < visible.length ? Buffer.from(String(next)).toString('base64url') : null,
    });
  }

  @Get('folders/:id/children')
  @ApiOperation({ summary: 'List the folders and files in a folder, a page at a time' })
  children(
    @Req() req: Request,
    @Param('id') id: string,
    @Query('cursor') cursor: string | undefined,
    @Res() res: Response,
  ) {
    const user = this.authorize(req, res);
    if (!user) return;
    const folder = this.store.nodes.get(id);
    if (!folder || folder.kind !== 'folder' || !user.workgroupIds.includes(folder.workgroupId))
      return res.status(404).json({ error: 'not_found' });
    const page = this.store.childrenPage(id, cursor);
    res.json({ items: page.items.map(entry), nextCursor: page.nextCursor });
  }

  @Get('files/:id/content')
  @ApiOperation({ summary: 'Download the bytes of a file' })
  async content(@Req() req: Request, @Param('id') id: string, @Res() res: Response) {
    const user = this.authorize(req, res);
    if (!user) return;
    const file = this.store.nodes.get(id);
    if (!file || file.kind !== 'file' || !user.workgroupIds.includes(file.workgroupId))
      return res.status(404).json({ error: 'not_found' });
    if (this.store.faults.missingContent?.includes?.(id)) return res.status(404).json({ error: 'not_found' });
    res.writeHead(200, { 'Content-Type': file.mimeType, 'Content-Length': String(file.size) });
    const stream = this.store.content(file);
    stream.on('data', (chunk: Buffer) => (this.store.stats.bytesServed += chunk.length));
    const rate = this.store.faults.contentBytesPerSecond;
    await (rate ? pipeline(stream, paceAt(rate), res) : pipeline(stream, res)).catch(() => res.destroy());
  }

  /** Bearer access token and session token, as every call but `session` needs. */
  private authorize(req: Request, res: Response): SimUser | null {
    if (!this.store.validAccessToken(bearer(req))) {
      res.status(401).json({ error: 'invalid_token' });
      return null;
    }
    const user = this.store.sessionUser(req.headers['x-session-token'] as string | undefined);
    if (!user) {
      res.status(401).json({ error: 'invalid_session' });
      return null;
    }
    return user;
  }
}

function entry(node: SimNode) {
  if (node.kind === 'folder') return { kind: 'folder', id: node.id, name: node.name, parentId: node.parentId };
  return {
    kind: 'file',
    id: node.id,
    name: node.name,
    parentId: node.parentId,
    size: node.size,
    mimeType: node.mimeType,
    version: String(node.version),
    modifiedAt: node.modifiedAt,
    ...(node.sha256 ? { sha256: node.sha256 } : {}),
  };
}

/** Passes bytes on no faster than `bytesPerSecond` (a slow link, for progress and estimates). */
function paceAt(bytesPerSecond: number): Transform {
  const started = Date.now();
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      setTimeout(() => done(null, chunk), Math.max(0, started + (sent / bytesPerSecond) * 1000 - Date.now()));
    },
  });
}
