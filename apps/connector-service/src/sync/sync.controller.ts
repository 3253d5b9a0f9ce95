import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, SyncRunResponse, SyncRunView, SyncStartResponse, SyncStartView } from '@app/contracts';
import { SyncRunEntity } from './sync-run.entity';
import { SyncService } from './sync.service';

export function syncRunResponse(run: SyncRunEntity): SyncRunView {
  return {
    id: run.id,
    dataSourceId: run.dataSourceId,
    mode: run.mode,
    status: run.status,
    counts: {
      discovered: run.discovered,
      added: run.added,
      updated: run.updated,
      unchanged: run.unchanged,
      deleted: run.deleted,
      failed: run.failed,
      skipped: run.skipped,
    },
    bytesDownloaded: run.bytesDownloaded,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    error: run.error,
  };
}

@ApiTags('sync')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1')
export class SyncController {
  constructor(private readonly sync: SyncService) {}

  @Post('data-sources/:id/sync')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: SyncStartResponse })
  async start(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<SyncStartView> {
    const run = await this.sync.start(principal, id);
    return { syncRunId: run.id, mode: run.mode };
  }

  @Get('data-sources/:id/sync-runs')
  @ApiOkResponse({ type: [SyncRunResponse] })
  async list(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<SyncRunView[]> {
    return (await this.sync.list(principal, id)).map(syncRunResponse);
  }

  @Get('sync-runs/:id')
  @ApiOkResponse({ type: SyncRunResponse })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<SyncRunView> {
    return syncRunResponse(await this.sync.get(principal, id));
  }

  @Post('sync-runs/:id/cancel')
  @HttpCode(200)
  @ApiOkResponse({ type: SyncRunResponse })
  async cancel(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<SyncRunView> {
    return syncRunResponse(await this.sync.cancel(principal, id));
  }
}
