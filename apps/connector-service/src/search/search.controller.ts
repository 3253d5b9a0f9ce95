import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import type { Response } from 'express';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, SearchPageResponse } from '@app/contracts/openapi';
import { SearchPageView } from '@app/contracts/views';
import { abandonment } from './abandonment';
import { SearchQueryDto } from './search.dto';
import { SearchService } from './search.service';

@ApiTags('search')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/projects/:projectId/search')
export class SearchController {
  constructor(private readonly searchService: SearchService) {}

  @Get()
  @ApiOperation({
    summary: 'Search the documents of a project by name, path and text',
    description:
      'Only in the data sources the caller may read. Hits carry the document id, data source and path so an ' +
      'agent can cite and fetch them. 404 DATA_SOURCE_NOT_FOUND for a dataSourceId the caller may not read; ' +
      '429 TOO_MANY_SEARCHES when the tenant has too many searches waiting, and 503 SEARCH_TIMEOUT for one ' +
      'that ran past SEARCH_TIMEOUT_MS, both with Retry-After.',
  })
  @ApiOkResponse({ type: SearchPageResponse })
  search(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', UuidParamPipe) projectId: string,
    @Query() query: SearchQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SearchPageView> {
    return this.searchService.search(principal, projectId, query, abandonment(res));
  }
}
