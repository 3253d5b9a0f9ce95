import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApiErrorResponses, AuthorizationStartResponse, ConnectionResponse } from '@app/contracts/openapi';
import { AuthorizationStartView, ConnectionView } from '@app/contracts/views';
import { AuthorizationService } from './authorization.service';
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
  ) {}

  @Post('authorize')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start connecting my account to an OAuth provider',
    description:
      'Answers the URL to open in the browser; its state is single use and expires after 10 minutes. The ' +
      'provider then redirects to the callback, which stores the connection.',
  })
  @ApiOkResponse({ type: AuthorizationStartResponse })
  authorize(@CurrentPrincipal() principal: Principal, @Body() body: AuthorizeDto): Promise<AuthorizationStartView> {
    return this.authorization.start(principal, body.providerId);
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
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.connections.remove(principal, id);
  }
}
