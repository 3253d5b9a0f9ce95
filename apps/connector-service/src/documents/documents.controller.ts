import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, DocumentResponse, DocumentTextResponse } from '@app/contracts/openapi';
import { DocumentView } from '@app/contracts/views';
import { answerPaced, answerToClient } from './answer-to-client';
import { documentResponse } from './dto/document.response';
import { DocumentsService } from './documents.service';
import { sendableMediaType } from '../common/media-type';

/**
 * RFC 6266: an ASCII fallback plus the exact UTF-8 name (RFC 8187: encodeURIComponent leaves ' ( ) * as they
 * are, which a value may not hold). A slash or backslash, which a document system may put in a name, becomes
 * `_` in both, so that no client takes a folder from it.
 */
function contentDisposition(name: string): string {
  const base = name.replace(/[/\\]/g, '_');
  const fallback = base.replace(/[^\x20-\x7e]|"/g, '_');
  const encoded = encodeURIComponent(base).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

@ApiTags('documents')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/documents/:id')
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  @Get()
  @ApiOperation({ summary: 'Show a document: where it is, its version and how its text extraction went' })
  @ApiOkResponse({ type: DocumentResponse })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<DocumentView> {
    return documentResponse(await this.documents.get(principal, id));
  }

  @Get('content')
  @ApiOperation({ summary: 'Download the original file of a document' })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({
    description: 'The original bytes, with their Content-Type and a Content-Disposition naming the file',
    schema: { type: 'string', format: 'binary' },
  })
  async content(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Res() res: Response,
  ): Promise<void> {
    const { doc, stream } = await this.documents.content(principal, id);
    res.status(200);
    res.setHeader('Content-Type', sendableMediaType(doc.mimeType));
    res.setHeader('Content-Length', String(doc.size));
    res.setHeader('Content-Disposition', contentDisposition(doc.name));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    await answerToClient(stream, res);
  }

  @Get('text')
  @ApiOperation({
    summary: 'Read the extracted text of a document, with what an agent needs to cite it',
    description:
      "For a PDF, `pages` says where each page lies in the text (character offsets, code points), so a passage's " +
      'offsets can be turned into "page 12"; empty for other files.',
  })
  @ApiOkResponse({ type: DocumentTextResponse })
  async text(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const answer = await this.documents.text(principal, id);
    res.setHeader('ETag', answer.etag);
    if (req.fresh) return void res.status(304).end();
    res.status(200);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', String(answer.byteLength));
    if (req.method === 'HEAD') return void res.end();
    await answerPaced(answer.pieces, res);
  }
}
