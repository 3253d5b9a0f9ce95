import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { OAuthSettingsDto, RegisterClientDto } from './dto/register-client.dto';
import { OAuthClient, OAuthState, sha256 } from './oauth-clients';

/** Test and demo controls of the OAuth host (no auth: never expose the simulator publicly). */
@ApiTags('simulator admin')
@Controller('admin/oauth')
export class OAuthAdminController {
  constructor(private readonly state: OAuthState) {}

  @Post('clients')
  @ApiOperation({ summary: 'Register (or replace) an OAuth client; several secrets may be valid at once (rotation)' })
  register(@Body() body: RegisterClientDto) {
    const client: OAuthClient = {
      clientId: body.clientId,
      clientSecretHashes: (body.clientSecrets ?? ['secret']).map(sha256),
      redirectUris: body.redirectUris ?? [],
      scopes: body.scopes ?? ['openid', 'offline_access'],
      tokenEndpointAuthMethods: body.tokenEndpointAuthMethods ?? ['client_secret_post', 'client_secret_basic'],
      accessTokenTtlSeconds: body.accessTokenTtlSeconds ?? 3600,
      refreshTokensBoundToSecret: body.refreshTokensBoundToSecret ?? false,
    };
    this.state.clients.set(client.clientId, client);
    const { clientSecretHashes, ...view } = client;
    return { ...view, clientSecretCount: clientSecretHashes.length };
  }

  @Put('settings')
  @ApiOperation({ summary: 'Auto-approve authorizations as one user (tests, demos), or show the login page (null)' })
  settings(@Body() body: OAuthSettingsDto) {
    if (body.autoApproveUser !== undefined) this.state.autoApproveUser = body.autoApproveUser;
    return { autoApproveUser: this.state.autoApproveUser };
  }

  @Get('stats')
  @ApiOperation({ summary: 'Calls of the token endpoint per grant type since the start' })
  stats() {
    return { tokenCalls: this.state.tokenCalls };
  }

  @Post('revoke-refresh-tokens')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Every refresh token stops working (the user revoked the app): the next refresh gets invalid_grant',
  })
  revokeRefreshTokens() {
    return { revoked: this.state.revokeRefreshTokens() };
  }

  @Post('reset')
  @HttpCode(204)
  @ApiOperation({ summary: 'Only the demo client again; no codes, no refresh tokens' })
  reset() {
    this.state.reset();
  }
}
