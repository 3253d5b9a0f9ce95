import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, ApiErrors, SyncRunResponse, SyncStartResponse } from '@app/contracts/openapi';
import { SyncRunView, SyncStartView } from '@app/contracts/views';
import { syncRunResponse } from '../dto/sync-run.response';
import { SyncService } from './sync.service';

@ApiTags('sync')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1')
export class SyncController {
  constructor(private readonly sync: SyncService) {}

  @Post('data-sources/:id/sync')
  @ApiErrors([404, 'DATA_SOURCE_NOT_FOUND'], [409, 'SYNC_IN_PROGRESS', 'NOTHING_SELECTED', 'REAUTH_REQUIRED'])
  @HttpCode(202)
  @ApiOperation({
    summary: 'Start syncing a data source now',
    description:
      'Any member may start one: Full until a run has completed, Incremental after. 409 SYNC_IN_PROGRESS ' +
      "(with the running run's id) while one runs, 409 NOTHING_SELECTED before a selection is saved.",
  })
  @ApiAcceptedResponse({ type: SyncStartResponse })
  async start(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
  ): Promise<SyncStartView> {
    const run = await this.sync.start(principal, id);
    return { syncRunId: run.id, mode: run.mode };
  }

  @Get('data-sources/:id/sync-runs')
  @ApiErrors([404, 'DATA_SOURCE_NOT_FOUND'])
  @ApiOperation({ summary: 'List the sync runs of a data source' })
  @ApiOkResponse({ type: [SyncRunResponse] })
  async list(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<SyncRunView[]> {
    return (await this.sync.list(principal, id)).map(syncRunResponse);
  }

  @Get('sync-runs/:id')
  @ApiErrors([404, 'SYNC_RUN_NOT_FOUND'])
  @ApiOperation({ summary: 'Show how a sync run stands: status, counts and bytes downloaded' })
  @ApiOkResponse({ type: SyncRunResponse })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<SyncRunView> {
    return syncRunResponse(await this.sync.get(principal, id));
  }

  @Post('sync-runs/:id/cancel')
  @ApiErrors([404, 'SYNC_RUN_NOT_FOUND'], [409, 'SYNC_RUN_NOT_ACTIVE'])
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a queued or running sync run',
    description: 'The data source returns to where it was before the run; 409 once the run has ended.',
  })
  @ApiOkResponse({ type: SyncRunResponse })
  async cancel(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<SyncRunView> {
    return syncRunResponse(await this.sync.cancel(principal, id));
  }
}
