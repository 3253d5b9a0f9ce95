import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '@app/auth';
import { AuthorizationService } from './authorization.service';
import { ConnectionsService } from './connections.service';
import { AuthorizeDto } from './dto/authorize.dto';
import { connectionResponse } from './dto/connection.response';

/** A user's own OAuth connections: start an authorization, list, disconnect. */
@ApiTags('OAuth connections')
@ApiBearerAuth()
@Controller('v2/OAuth')
export class ConnectionsController {
  constructor(
    private readonly authorization: AuthorizationService,
    private readonly connections: ConnectionsService,
  ) {}

  @Post('authorize')
  @HttpCode(200)
  authorize(@CurrentPrincipal() principal: Principal, @Body() body: AuthorizeDto) {
    return this.authorization.start(principal, body.providerId);
  }

  @Get('connections')
  async list(@CurrentPrincipal() principal: Principal) {
    return (await this.connections.listOwn(principal)).map(connectionResponse);
  }

  @Delete('connections/:id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    await this.connections.remove(principal, id);
  }
}
