import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, AuthorizationStartResponse, ConnectionResponse } from '@app/contracts/openapi';
import { AuthorizationStartView, ConnectionView } from '@app/contracts/views';
import { AuthorizationService } from './authorization.service';
import { BrowserBinding } from './browser-binding';
import { ConnectionsService } from './connections.service';
import { AuthorizeDto } from './dto/authorize.dto';
import { connectionResponse } from './dto/connection.response';

/** A user's own OAuth connections: start an authorization, list, disconnect. */
@ApiTags('OAuth connections')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v2/OAuth')
export class ConnectionsController {
  constructor(
    private readonly authorization: AuthorizationService,
    private readonly connections: ConnectionsService,
    private readonly binding: BrowserBinding,
  ) {}

  @Post('authorize')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start connecting my account to an OAuth provider',
    description:
      'Answers the URL to open in the browser; its state is single use and expires after 10 minutes. The ' +
      'provider then redirects to the callback, which stores the connection. Also sets a cookie (HttpOnly, ' +
      'SameSite=Lax, path /v2/OAuth/callback) bound to the state: call this from the browser that will open ' +
      'the URL, since the callback without that cookie stores nothing (400 STATE_NOT_BOUND).',
  })
  @ApiOkResponse({ type: AuthorizationStartResponse })
  async authorize(
    @CurrentPrincipal() principal: Principal,
    @Body() body: AuthorizeDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AuthorizationStartView> {
    const cookie = this.binding.issue();
    const { expires, ...started } = await this.authorization.start(principal, body.providerId, cookie.hash);
    this.binding.set(res, started.state, cookie.value, expires);
    return started;
  }

  @Get('connections')
  @ApiOperation({ summary: 'List my OAuth connections and whether they still work' })
  @ApiOkResponse({ type: [ConnectionResponse] })
  async list(@CurrentPrincipal() principal: Principal): Promise<ConnectionView[]> {
    return (await this.connections.listOwn(principal)).map(connectionResponse);
  }

  @Delete('connections/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Disconnect one of my OAuth connections' })
  @ApiNoContentResponse()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<void> {
    await this.connections.remove(principal, id);
  }
}
