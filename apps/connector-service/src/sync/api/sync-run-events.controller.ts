import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Principal, TokenExpiresAt } from '@app/auth';
import { ApiErrorResponses } from '@app/contracts/openapi';
import { DomainException, UuidParamPipe } from '@app/errors';
import { SyncRunStreams } from './sync-run-streams';
import { SyncService } from './sync.service';

@ApiTags('sync')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1')
export class SyncRunEventsController {
  constructor(
    private readonly sync: SyncService,
    private readonly streams: SyncRunStreams,
  ) {}

  @Get('sync-runs/:id/events')
  @ApiOperation({
    summary: "Follow a sync run's progress live (server-sent events)",
    description:
      'Who may read the run may follow it. A `progress` event at once and then whenever the run changes ' +
      '(its estimate at most every 2 s), each carrying the run as GET /v1/sync-runs/{id} shows it; an `end` ' +
      'event with the final run once it has ended, then the stream closes. A stream lasts at most 30 minutes, and ' +
      'ends sooner when the token expires or the caller may no longer read the run (checked at least every 60 s); ' +
      "503 TOO_MANY_RUN_STREAMS when the process, or the caller's tenant in it, has too many open.",
  })
  @ApiOkResponse({
    description:
      'text/event-stream: `event: progress` / `event: end` lines, each followed by `data:` with the run as JSON',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  async follow(
    @CurrentPrincipal() principal: Principal,
    @TokenExpiresAt() tokenExpiresAt: Date,
    @Param('id', UuidParamPipe) id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    this.streams.follow(await this.sync.get(principal, id), req, res, {
      tokenExpiresAt,
      mayStillFollow: () => this.sync.get(principal, id).then(() => true, hiddenAsFalse),
    });
  }
}

/** A run the caller may no longer read answers 404; any other failure (the database away) stays what it is. */
function hiddenAsFalse(error: unknown): false {
  if (error instanceof DomainException && error.statusCode === 404) return false;
  throw error;
}
