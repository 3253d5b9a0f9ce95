import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, PickerPageResponse, PickerPageView } from '@app/contracts';
import { FolderPickerService } from './folder-picker.service';

@ApiTags('folder picker')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/data-sources/:id/folders')
export class FoldersController {
  constructor(private readonly picker: FolderPickerService) {}

  /** Without parentId: the workgroups. With it: that folder's subfolders. */
  @Get()
  @ApiQuery({ name: 'parentId', required: false })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiOkResponse({ type: PickerPageResponse })
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
    @Query('parentId') parentId?: string,
    @Query('cursor') cursor?: string,
  ): Promise<PickerPageView> {
    return this.picker.list(principal, id, parentId || undefined, cursor || undefined);
  }
}
