import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import type { Response } from 'express';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, PassagesResponse } from '@app/contracts/openapi';
import { PassagesView } from '@app/contracts/views';
import { abandonment } from '../abandonment';
import { PassagesQueryDto } from './passages.dto';
import { PassagesService } from './passages.service';

@ApiTags('search')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/projects/:projectId/passages')
export class PassagesController {
  constructor(private readonly passagesService: PassagesService) {}

  @Get()
  @ApiOperation({
    summary: 'Find the passages of a project that best match words, with what an agent needs to quote and cite them',
    description:
      "The best-matching chunks (about 1,200 characters) of the documents' extracted text, best first, only in " +
      'the data sources the caller may read: each with its document, path, its range in the text that ' +
      'GET /v1/documents/{id}/text returns (start, end: character offsets, Unicode code points) and, for a PDF, ' +
      'the page where it starts. Their text is at most maxChars in all: the passage that reaches it is cut ' +
      'short and the rest left out (truncated: true). 404 DATA_SOURCE_NOT_FOUND for a dataSourceId the ' +
      'caller may not read; 429 TOO_MANY_SEARCHES and 503 SEARCH_TIMEOUT as for search.',
  })
  @ApiOkResponse({ type: PassagesResponse })
  passages(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', UuidParamPipe) projectId: string,
    @Query() query: PassagesQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PassagesView> {
    return this.passagesService.passages(principal, projectId, query, abandonment(res));
  }
}
