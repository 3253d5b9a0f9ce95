import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { TreeService } from './tree.service';

@ApiTags('data sources')
@ApiBearerAuth()
@Controller('v1/data-sources/:id/tree')
export class TreeController {
  constructor(private readonly tree: TreeService) {}

  /** Without folderId: the workgroups. With it: that folder's subfolders and files. */
  @Get()
  @ApiQuery({ name: 'folderId', required: false })
  view(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string, @Query('folderId') folderId?: string) {
    return this.tree.view(principal, id, folderId || undefined);
  }
}
