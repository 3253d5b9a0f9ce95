import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { TreeQueryDto } from './tree.dto';
import { TreeService } from './tree.service';

@ApiTags('data sources')
@ApiBearerAuth()
@Controller('v1/data-sources/:id/tree')
export class TreeController {
  constructor(private readonly tree: TreeService) {}

  /** Without folderId: the workgroups. With it: that folder's subfolders and files, a page at a time (`nextCursor`). */
  @Get()
  view(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string, @Query() query: TreeQueryDto) {
    return this.tree.view(principal, id, query);
  }
}
