import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { OAuthClient, OAuthState } from './oauth-clients';

/** Test and demo controls of the OAuth host (no auth: never expose the simulator publicly). */
@ApiTags('simulator admin')
@Controller('admin/oauth')
export class OAuthAdminController {
  constructor(private readonly state: OAuthState) {}

  /** Registers (or replaces) a client; several secrets may be valid at once (rotation). */
  @Post('clients')
  register(@Body() body: Partial<OAuthClient> & { clientId: string }) {
    const client: OAuthClient = {
      clientId: body.clientId,
      clientSecrets: body.clientSecrets ?? ['secret'],
      redirectUris: body.redirectUris ?? [],
      scopes: body.scopes ?? ['openid', 'offline_access'],
      tokenEndpointAuthMethods: body.tokenEndpointAuthMethods ?? ['client_secret_post', 'client_secret_basic'],
      accessTokenTtlSeconds: body.accessTokenTtlSeconds ?? 3600,
      refreshTokensBoundToSecret: body.refreshTokensBoundToSecret ?? false,
    };
    this.state.clients.set(client.clientId, client);
    return client;
  }

  /** `autoApproveUser`: approve every authorization at once as this user (null: show the login page). */
  @Put('settings')
  settings(@Body() body: { autoApproveUser?: string | null }) {
    if (body.autoApproveUser !== undefined) this.state.autoApproveUser = body.autoApproveUser;
    return { autoApproveUser: this.state.autoApproveUser };
  }

  /** Calls of the token endpoint per grant type. */
  @Get('stats')
  stats() {
    return { tokenCalls: this.state.tokenCalls };
  }

  /** Every refresh token stops working (the user revoked the app): the next refresh gets invalid_grant. */
  @Post('revoke-refresh-tokens')
  @HttpCode(200)
  revokeRefreshTokens() {
    return { revoked: this.state.revokeRefreshTokens() };
  }

  @Post('reset')
  @HttpCode(204)
  reset() {
    this.state.reset();
  }
}
