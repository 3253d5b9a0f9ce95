import { Controller, Get, Param, Query } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, TreePageResponse } from '@app/contracts/openapi';
import { TreePageView } from '@app/contracts/views';
import { TreeQueryDto } from './tree.dto';
import { TreeService } from './tree.service';

@ApiTags('data sources')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/data-sources/:id/tree')
export class TreeController {
  constructor(private readonly tree: TreeService) {}

  @Get()
  @ApiOperation({
    summary: 'Browse what a data source has ingested, folder by folder',
    description:
      "Without folderId: the workgroups. With it: that folder's subfolders and files with their status, " +
      'a page at a time (nextCursor). parentId is accepted as an alias of folderId, as the folder picker ' +
      'names it; both given and different: 400.',
  })
  @ApiOkResponse({ type: TreePageResponse })
  view(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Query() query: TreeQueryDto,
  ): Promise<TreePageView> {
    return this.tree.view(principal, id, query);
  }
}
