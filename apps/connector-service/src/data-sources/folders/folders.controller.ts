import { Controller, Get, Param, Query } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, ApiErrors, PickerPageResponse } from '@app/contracts/openapi';
import { PickerPageView } from '@app/contracts/views';
import { FolderPickerQueryDto } from './folder-picker.dto';
import { FolderPickerService } from './folder-picker.service';

@ApiTags('folder picker')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/data-sources/:id/folders')
export class FoldersController {
  constructor(private readonly picker: FolderPickerService) {}

  @Get()
  @ApiErrors([404, 'DATA_SOURCE_NOT_FOUND', 'FOLDER_NOT_FOUND'], [409, 'REAUTH_REQUIRED'], [422, 'CREDENTIALS_INVALID'])
  @ApiOperation({
    summary: 'List the folders of a workgroup for the folder picker, with what is selected',
    description:
      "Live from the document system. Without parentId: the workgroups; with it: that folder's subfolders. " +
      '422 CREDENTIALS_INVALID when the credential is refused; 409 REAUTH_REQUIRED when the connection ' +
      'must be re-authenticated; 200 with no items and a notice for an account without workgroup access; ' +
      '502 DOCUMENT_SYSTEM_UNAVAILABLE when the document system does not answer within the bound of one ' +
      'request (50 calls, 10 s), the access token included.',
  })
  @ApiOkResponse({ type: PickerPageResponse })
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Query() query: FolderPickerQueryDto,
  ): Promise<PickerPageView> {
    return this.picker.list(principal, id, query.parentId || undefined, query.cursor || undefined);
  }
}
