import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  AuthorizationStartView,
  CONNECTION_STATUSES,
  ConnectionStatus,
  ConnectionView,
  ProviderView,
  TOKEN_ENDPOINT_AUTH_METHODS,
  TokenEndpointAuthMethod,
} from '../views/oauth.view';

export class ProviderBehaviourResponse {
  @ApiProperty({ enum: TOKEN_ENDPOINT_AUTH_METHODS })
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
}

export class ProviderResponse implements ProviderView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: ['GenericOAuth'] })
  provider: 'GenericOAuth';

  @ApiProperty({ enum: ['StaticUserOauth'] })
  authenticationType: 'StaticUserOauth';

  @ApiProperty()
  clientId: string;

  @ApiProperty()
  authorizationEndpoint: string;

  @ApiProperty()
  tokenEndpoint: string;

  @ApiProperty({ description: 'May be ""' })
  revokeEndpoint: string;

  @ApiProperty({ type: [String] })
  supportedScopes: string[];

  @ApiProperty({ type: () => ProviderBehaviourResponse })
  behaviour: ProviderBehaviourResponse;

  @ApiProperty()
  clientSecretConfigured: boolean;

  @ApiProperty()
  secretVersion: number;

  @ApiProperty({ description: '{PUBLIC_BASE_URL}/v2/OAuth/callback, to copy into the registration' })
  redirectUri: string;

  @ApiProperty({ type: [String] })
  warnings: string[];

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class AuthorizationStartResponse implements AuthorizationStartView {
  @ApiProperty()
  authorizationUrl: string;

  @ApiProperty({ description: 'Single use' })
  state: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;
}

export class ConnectionResponse implements ConnectionView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  providerId: string;

  @ApiProperty({ enum: CONNECTION_STATUSES })
  status: ConnectionStatus;

  @ApiProperty({ type: [String] })
  scopes: string[];

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expiresAt: string | null;

  @ApiProperty()
  hasRefreshToken: boolean;

  @ApiProperty()
  secretVersion: number;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiPropertyOptional({ description: 'Only when NeedsReauth: why the last refresh failed' })
  problem?: string;
}
