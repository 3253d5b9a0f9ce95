import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { NotFoundException, ValidationFailedException } from '@app/errors';
import type { FileBody, FileNode } from '../store/sim-types';
import { SimulatorStore } from '../store/simulator-store';
import { AddFileDto, FileContentDto } from './dto/file-content.dto';
import { AddFolderDto, BulkFilesDto, RelocateDto } from './dto/tree-change.dto';

const MIME_BY_FORMAT = { text: 'text/plain', pdf: 'application/pdf' } as const;

/**
 * Changes to the document tree for tests and demos (no auth: never expose the simulator publicly): add,
 * change, rename, move and delete files and folders; bulk-generate files.
 */
@ApiTags('simulator admin')
@Controller('admin')
export class AdminTreeController {
  constructor(private readonly store: SimulatorStore) {}

  @Get('workgroups')
  @ApiOperation({ summary: 'Every workgroup with its root folder' })
  workgroups() {
    return this.store.workgroups;
  }

  @Get('folders')
  @ApiOperation({ summary: 'The id of the folder at a path such as /Architecture/Drawings/Level 1' })
  @ApiQuery({ name: 'path', example: '/Architecture/Drawings/Level 1' })
  folderAt(@Query('path') path: string) {
    const parts = (path ?? '').split('/').filter(Boolean);
    const workgroup = this.store.workgroups.find((w) => w.name === parts[0]);
    if (!workgroup) throw new NotFoundException(`Workgroup ${parts[0] ?? '(none given)'}`);
    let id = workgroup.rootFolderId;
    for (const name of parts.slice(1)) {
      const child = (this.store.children.get(id) ?? [])
        .map((c) => this.store.nodes.get(c)!)
        .find((n) => n.kind === 'folder' && n.name === name);
      if (!child) throw new NotFoundException(`Folder ${name} in ${this.store.pathOf(id)}`);
      id = child.id;
    }
    return { id, path: `/${this.store.pathOf(id)}` };
  }

  @Get('files')
  @ApiOperation({ summary: 'Every file below a folder, with path, size and version: what a full sync should ingest' })
  @ApiQuery({ name: 'under', description: 'A folder id (`folderId` is taken too)' })
  @ApiQuery({ name: 'folderId', required: false, description: 'Another name for `under`' })
  filesUnder(@Query('under') given?: string, @Query('folderId') folderId?: string) {
    const under = given ?? folderId;
    if (!under)
      throw new ValidationFailedException('Query parameter `under` (a folder id) is required', [
        { field: 'under', problems: ['under must be a folder id'] },
      ]);
    this.folderOr404(under);
    return this.store.filesUnder(under).map((f) => ({
      id: f.id,
      name: f.name,
      path: f.path,
      size: f.size,
      version: f.version,
      mimeType: f.mimeType,
      sha256: f.sha256 ?? null,
    }));
  }

  @Post('folders')
  @ApiOperation({ summary: 'Add a folder' })
  addFolder(@Body() body: AddFolderDto) {
    this.folderOr404(body.parentId);
    return this.store.addFolder(body.parentId, body.name);
  }

  @Post('files')
  @ApiOperation({ summary: 'Add a file with text, base64 or generated content' })
  addFile(@Body() body: AddFileDto) {
    this.folderOr404(body.parentId);
    const { content, mimeType } = fileBody(body);
    return view(this.store.addFile(body.parentId, body.name, mimeType, content));
  }

  @Patch('files/:id')
  @ApiOperation({ summary: 'A new version of a file’s content' })
  changeFile(@Param('id') id: string, @Body() body: FileContentDto) {
    if (this.store.nodes.get(id)?.kind !== 'file') throw new NotFoundException(`File ${id}`);
    const { content, mimeType } = fileBody(body);
    return view(this.store.changeFile(id, content, body.mimeType ? mimeType : undefined));
  }

  @Post('nodes/:id/relocate')
  @ApiOperation({ summary: 'Rename and/or move a file or folder; content and version stay' })
  relocate(@Param('id') id: string, @Body() body: RelocateDto) {
    const node = this.store.nodes.get(id);
    if (!node) throw new NotFoundException(`Node ${id}`);
    if (node.parentId === null)
      throw new ValidationFailedException('A workgroup’s root folder cannot be renamed or moved', [
        { field: 'id', problems: ['is a workgroup root'] },
      ]);
    if (body.parentId) {
      this.folderOr404(body.parentId);
      if (this.isWithin(body.parentId, id))
        throw new ValidationFailedException('A folder cannot move into itself or below itself', [
          { field: 'parentId', problems: ['is inside the node moved'] },
        ]);
    }
    const moved = this.store.relocate(id, body);
    return moved.kind === 'file' ? view(moved) : moved;
  }

  @Delete('nodes/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a file, or a folder with everything below it' })
  remove(@Param('id') id: string) {
    if (!this.store.nodes.has(id)) throw new NotFoundException(`Node ${id}`);
    this.store.remove(id);
  }

  @Post('bulk-files')
  @ApiOperation({
    summary: 'Many generated files at once (benchmarks): sizes spread evenly between minSize and maxSize',
  })
  bulk(@Body() body: BulkFilesDto) {
    this.folderOr404(body.parentId);
    const min = body.minSize ?? 2048;
    const max = Math.max(min, body.maxSize ?? 200 * 1024);
    const perFolder = body.perFolder ?? 500;
    let folderId = body.parentId;
    let totalBytes = 0;
    for (let i = 0; i < body.count; i++) {
      if (i % perFolder === 0)
        folderId = this.store.addFolder(body.parentId, `batch-${String(i / perFolder).padStart(3, '0')}`).id;
      const format = body.format === 'mixed' || !body.format ? (i % 2 ? 'pdf' : 'text') : body.format;
      const size = Math.round(min + ((max - min) * ((i * 7919) % 1000)) / 999);
      const seed = (body.seed ?? 1) * 100_000 + i;
      const file = this.store.addFile(
        folderId,
        `gen-${String(i).padStart(5, '0')}.${format === 'pdf' ? 'pdf' : 'txt'}`,
        MIME_BY_FORMAT[format],
        { type: 'generated', format, size, seed },
      );
      totalBytes += file.size;
    }
    return { created: body.count, totalBytes };
  }

  private folderOr404(id: string): void {
    if (this.store.nodes.get(id)?.kind !== 'folder') throw new NotFoundException(`Folder ${id}`);
  }

  /** Whether `folderId` is `ancestorId` or lies below it. */
  private isWithin(folderId: string, ancestorId: string): boolean {
    for (
      let node = this.store.nodes.get(folderId);
      node;
      node = node.parentId ? this.store.nodes.get(node.parentId) : undefined
    ) {
      if (node.id === ancestorId) return true;
    }
    return false;
  }
}

function fileBody(input: FileContentDto): { content: FileBody; mimeType: string } {
  if (input.generate) {
    const { format, size, seed } = input.generate;
    return {
      content: { type: 'generated', format, size, seed: seed ?? 1 },
      mimeType: input.mimeType ?? MIME_BY_FORMAT[format],
    };
  }
  if (input.text !== undefined)
    return {
      content: { type: 'bytes', data: Buffer.from(input.text, 'utf8') },
      mimeType: input.mimeType ?? 'text/plain',
    };
  if (input.base64 !== undefined)
    return {
      content: { type: 'bytes', data: Buffer.from(input.base64, 'base64') },
      mimeType: input.mimeType ?? 'application/octet-stream',
    };
  throw new ValidationFailedException('Give the content: text, base64 or generate', [
    { field: 'content', problems: ['give text, base64 or generate'] },
  ]);
}

function view(file: FileNode) {
  const { id, name, parentId, size, version, mimeType, modifiedAt, sha256 } = file;
  return { id, name, parentId, size, version, mimeType, modifiedAt, sha256: sha256 ?? null };
}
