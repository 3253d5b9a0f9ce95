import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { FolderPickerService } from './folder-picker.service';

@ApiTags('folder picker')
@ApiBearerAuth()
@Controller('v1/data-sources/:id/folders')
export class FoldersController {
  constructor(private readonly picker: FolderPickerService) {}

  /** Without parentId: the workgroups. With it: that folder's subfolders. */
  @Get()
  @ApiQuery({ name: 'parentId', required: false })
  @ApiQuery({ name: 'cursor', required: false })
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Query('parentId') parentId?: string,
    @Query('cursor') cursor?: string,
  ) {
    return this.picker.list(principal, id, parentId || undefined, cursor || undefined);
  }
}
