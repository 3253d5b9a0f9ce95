import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { SearchQueryDto } from './search.dto';
import { SearchService } from './search.service';

@ApiTags('search')
@ApiBearerAuth()
@Controller('v1/projects/:projectId/search')
export class SearchController {
  constructor(private readonly searchService: SearchService) {}

  /** Hits carry the document id, data source and path so an agent can cite and fetch them. */
  @Get()
  search(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', ParseUUIDPipe) projectId: string,
    @Query() query: SearchQueryDto,
  ) {
    return this.searchService.search(principal, projectId, query);
  }
}
