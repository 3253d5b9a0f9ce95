import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, DeletionsConfirmedResponse } from '@app/contracts/openapi';
import { DeletionsConfirmedView } from '@app/contracts/views';
import { ConfirmDeletionsService } from './confirm-deletions.service';

@ApiTags('sync')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/sync-runs')
export class ConfirmDeletionsController {
  constructor(private readonly deletions: ConfirmDeletionsService) {}

  @Post(':id/confirm-deletions')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Apply the deletions a sync run held back',
    description:
      'A run that would delete more than DELETE_GUARD_PERCENT percent of the documents, or whose selected folder ' +
      "vanished, holds its deletions (deletionsHeld). This applies them. The data source's creator or a tenant " +
      'admin (403 DELETIONS_CONFIRM_FORBIDDEN for other members, the one who started the run among them); 409 NOTHING_HELD when ' +
      'none are held or they were confirmed already; the next run of the data source releases them (it decides afresh).',
  })
  @ApiOkResponse({ type: DeletionsConfirmedResponse })
  confirm(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
  ): Promise<DeletionsConfirmedView> {
    return this.deletions.confirm(principal, id);
  }
}
