import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { SyncRunEntity } from './sync-run.entity';
import { SyncService } from './sync.service';

export function syncRunResponse(run: SyncRunEntity) {
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
@Controller('v1')
export class SyncController {
  constructor(private readonly sync: SyncService) {}

  @Post('data-sources/:id/sync')
  @HttpCode(202)
  async start(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    const run = await this.sync.start(principal, id);
    return { syncRunId: run.id, mode: run.mode };
  }

  @Get('data-sources/:id/sync-runs')
  async list(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return (await this.sync.list(principal, id)).map(syncRunResponse);
  }

  @Get('sync-runs/:id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return syncRunResponse(await this.sync.get(principal, id));
  }

  @Post('sync-runs/:id/cancel')
  @HttpCode(200)
  async cancel(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return syncRunResponse(await this.sync.cancel(principal, id));
  }
}
