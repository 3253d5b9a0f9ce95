import { Controller, Get, Param, Query } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, SyncRunFilesPageResponse } from '@app/contracts/openapi';
import { SyncRunFilesPageView } from '@app/contracts/views';
import { SyncRunFilesQueryDto } from './sync-run-files.dto';
import { SyncRunFilesService } from './sync-run-files.service';

@ApiTags('sync')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/sync-runs/:id/files')
export class SyncRunFilesController {
  constructor(private readonly files: SyncRunFilesService) {}

  @Get()
  @ApiOperation({
    summary: 'List what a sync run did with each file',
    description:
      'One row per file the run decided something about: Added, Updated, Unchanged, Deleted, Held (a deletion the ' +
      'deletion guard keeps until it is confirmed, then Deleted; reason: why), Skipped (reason ' +
      'TooLarge or Unsupported), NoText (its text extraction found no text) or Failed (reason: the failure). ' +
      "Rows change after the run while its files' text is extracted. In externalId order, a page at a time " +
      '(nextCursor); outcome filters. Members of the data source only (404 otherwise).',
  })
  @ApiOkResponse({ type: SyncRunFilesPageResponse })
  page(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
    @Query() query: SyncRunFilesQueryDto,
  ): Promise<SyncRunFilesPageView> {
    return this.files.page(principal, id, query);
  }
}
