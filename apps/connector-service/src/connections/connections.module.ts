import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutageModule } from '@app/database';
import { CommonModule } from '../common/common.module';
import { ConnectionTokens } from '../document-system/connection-tokens.port';
import { ConnectorMetricsModule } from '../metrics/connector-metrics.module';
import { ProvidersModule } from '../providers/providers.module';
import { AuthorizationRequestsRepository } from './authorization-requests.repository';
import { AuthorizationService } from './authorization.service';
import { BrowserBinding } from './browser-binding';
import { ConnectionEvents } from './connection-events';
import { ConnectionsController } from './connections.controller';
import { ConnectionsRepository } from './connections.repository';
import { ConnectionsService } from './connections.service';
import { OAuthCallbackController } from './oauth-callback.controller';
import { OAuthConnectionEntity } from './oauth-connection.entity';
import { OAuthConnectionTokens } from './oauth-connection-tokens';
import { OAuthTokenClient } from './oauth-token-client';
import { RefreshGrant } from './refresh-grant';
import { RefreshLeases } from './refresh-leases';
import { RefreshedTokens } from './refreshed-tokens';
import { TokenRefresher } from './token-refresher';
import { TokenRevoker } from './token-revoker';

/**
 * Per-user OAuth connections: provides ConnectionTokens to credentials, data sources and the picker,
 * and tells ConnectionEvents' listeners when a connection needs re-authorization or was authorized again.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([OAuthConnectionEntity]),
    CommonModule,
    OutageModule,
    ProvidersModule,
    ConnectorMetricsModule,
  ],
  controllers: [ConnectionsController, OAuthCallbackController],
  providers: [
    AuthorizationRequestsRepository,
    AuthorizationService,
    BrowserBinding,
    ConnectionEvents,
    ConnectionsRepository,
    ConnectionsService,
    OAuthTokenClient,
    RefreshLeases,
    RefreshGrant,
    RefreshedTokens,
    TokenRefresher,
    TokenRevoker,
    { provide: ConnectionTokens, useClass: OAuthConnectionTokens },
  ],
  exports: [ConnectionTokens, ConnectionEvents],
})
export class ConnectionsModule {}
