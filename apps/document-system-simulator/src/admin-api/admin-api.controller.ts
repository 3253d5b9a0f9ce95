import { BadRequestException, Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { FaultInjectionMiddleware } from '../document-api/fault-injection.middleware';
import type { FileBody, Faults } from '../store/sim-types';
import { SimulatorStore } from '../store/simulator-store';

interface ContentInput {
  text?: string;
  base64?: string;
  generate?: { format: 'text' | 'pdf'; size: number; seed?: number };
  mimeType?: string;
}

const MIME_BY_FORMAT = { text: 'text/plain', pdf: 'application/pdf' } as const;

/**
 * For tests and demos (no auth: never expose the simulator publicly): reset, faults, expiry, and
 * changes to the tree (add, change, rename, move, delete files and folders; bulk-generate files).
 */
@ApiTags('simulator admin')
@Controller('admin')
export class AdminApiController {
  constructor(
    private readonly store: SimulatorStore,
    private readonly faults: FaultInjectionMiddleware,
  ) {}

  @Post('reset')
  @HttpCode(204)
  reset() {
    this.store.reset();
    this.faults.reseed(42);
  }

  @Get('stats')
  stats() {
    return this.store.stats;
  }

  @Post('stats/reset')
  @HttpCode(204)
  resetStats() {
    this.store.resetStats();
  }

  @Put('faults')
  setFaults(@Body() body: Partial<Faults> & { seed?: number }) {
    const { seed, ...faults } = body ?? {};
    this.store.faults = { ...this.store.faults, ...faults };
    if (seed !== undefined) this.faults.reseed(seed);
    return this.store.faults;
  }

  @Put('settings')
  settings(@Body() body: { pageSize?: number; sessionTtlSeconds?: number }) {
    if (body.pageSize) this.store.pageSize = body.pageSize;
    if (body.sessionTtlSeconds) this.store.sessionTtlSeconds = body.sessionTtlSeconds;
    return { pageSize: this.store.pageSize, sessionTtlSeconds: this.store.sessionTtlSeconds };
  }

  /** Expires every access token and/or session issued so far. */
  @Post('expire')
  @HttpCode(204)
  expire(@Body() body: { accessTokens?: boolean; sessions?: boolean }) {
    if (body.accessTokens) this.store.expireAccessTokens();
    if (body.sessions) this.store.expireSessions();
  }

  /** An access token without the OAuth dance, for tests of the document API alone. */
  @Post('tokens')
  token(@Body() body: { subject?: string; ttlSeconds?: number }) {
    const ttl = body.ttlSeconds ?? 3600;
    return { accessToken: this.store.issueAccessToken(body.subject ?? 'test', ttl), expiresIn: ttl };
  }

  @Get('workgroups')
  workgroups() {
    return this.store.workgroups;
  }

  /** The id of the folder at a path such as `/Architecture/Drawings/Level 1`. */
  @Get('folders')
  folderAt(@Query('path') path: string) {
    const parts = (path ?? '').split('/').filter(Boolean);
    const workgroup = this.store.workgroups.find((w) => w.name === parts[0]);
    if (!workgroup) throw new NotFoundException(`no workgroup ${parts[0]}`);
    let id = workgroup.rootFolderId;
    for (const name of parts.slice(1)) {
      const child = (this.store.children.get(id) ?? []).map((c) => this.store.nodes.get(c)!).find((n) => n.kind === 'folder' && n.name === name);
      if (!child) throw new NotFoundException(`no folder ${name} in ${this.store.pathOf(id)}`);
      id = child.id;
    }
    return { id, path: `/${this.store.pathOf(id)}` };
  }

  /** Every file below a folder, with path, size and version: what a full sync should ingest. */
  @Get('files')
  filesUnder(@Query('under') under: string) {
    this.folderOr404(under);
    return this.store.filesUnder(under).map((f) => ({ id: f.id, name: f.name, path: f.path, size: f.size, version: f.version, mimeType: f.mimeType, sha256: f.sha256 ?? null }));
  }

  @Post('folders')
  addFolder(@Body() body: { parentId: string; name: string }) {
    this.folderOr404(body.parentId);
    return this.store.addFolder(body.parentId, body.name);
  }

  @Post('files')
  addFile(@Body() body: ContentInput & { parentId: string; name: string }) {
    this.folderOr404(body.parentId);
    const { content, mimeType } = this.body(body);
    return view(this.store.addFile(body.parentId, body.name, mimeType, content));
  }

  @Patch('files/:id')
  changeFile(@Param('id') id: string, @Body() body: ContentInput) {
    this.fileOr404(id);
    const { content, mimeType } = this.body(body);
    return view(this.store.changeFile(id, content, body.mimeType ? mimeType : undefined));
  }

  @Post('nodes/:id/relocate')
  relocate(@Param('id') id: string, @Body() body: { name?: string; parentId?: string }) {
    if (!this.store.nodes.has(id)) throw new NotFoundException(id);
    if (body.parentId) this.folderOr404(body.parentId);
    const node = this.store.relocate(id, body);
    return node.kind === 'file' ? view(node) : node;
  }

  @Delete('nodes/:id')
  @HttpCode(204)
  remove(@Param('id') id: string) {
    if (!this.store.nodes.has(id)) throw new NotFoundException(id);
    this.store.remove(id);
  }

  /** Many generated files at once (benchmarks): sizes spread evenly between min and max. */
  @Post('bulk-files')
  bulk(@Body() body: { parentId: string; count: number; format?: 'text' | 'pdf' | 'mixed'; minSize?: number; maxSize?: number; seed?: number; perFolder?: number }) {
    this.folderOr404(body.parentId);
    const min = body.minSize ?? 2048;
    const max = body.maxSize ?? 200 * 1024;
    const perFolder = body.perFolder ?? 500;
    let folderId = body.parentId;
    let totalBytes = 0;
    for (let i = 0; i < body.count; i++) {
      if (i % perFolder === 0) folderId = this.store.addFolder(body.parentId, `batch-${String(i / perFolder).padStart(3, '0')}`).id;
      const format = body.format === 'mixed' || !body.format ? (i % 2 ? 'pdf' : 'text') : body.format;
      const size = Math.round(min + ((max - min) * ((i * 7919) % 1000)) / 999);
      const seed = (body.seed ?? 1) * 100_000 + i;
      const file = this.store.addFile(folderId, `gen-${String(i).padStart(5, '0')}.${format === 'pdf' ? 'pdf' : 'txt'}`, MIME_BY_FORMAT[format], { type: 'generated', format, size, seed });
      totalBytes += file.size;
    }
    return { created: body.count, totalBytes };
  }

  private body(input: ContentInput): { content: FileBody; mimeType: string } {
    if (input.generate) {
      const { format, size, seed } = input.generate;
      return { content: { type: 'generated', format, size, seed: seed ?? 1 }, mimeType: input.mimeType ?? MIME_BY_FORMAT[format] };
    }
    if (input.text !== undefined) return { content: { type: 'bytes', data: Buffer.from(input.text, 'utf8') }, mimeType: input.mimeType ?? 'text/plain' };
    if (input.base64 !== undefined) return { content: { type: 'bytes', data: Buffer.from(input.base64, 'base64') }, mimeType: input.mimeType ?? 'application/octet-stream' };
    throw new BadRequestException('give text, base64 or generate');
  }

  private folderOr404(id: string): void {
    if (this.store.nodes.get(id)?.kind !== 'folder') throw new NotFoundException(`no folder ${id}`);
  }

  private fileOr404(id: string): void {
    if (this.store.nodes.get(id)?.kind !== 'file') throw new NotFoundException(`no file ${id}`);
  }
}

function view(file: { id: string; name: string; parentId: string; size: number; version: number; mimeType: string; modifiedAt: string; sha256?: string }) {
  const { id, name, parentId, size, version, mimeType, modifiedAt, sha256 } = file;
  return { id, name, parentId, size, version, mimeType, modifiedAt, sha256: sha256 ?? null };
}
