import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSourcesModule } from '../data-sources/data-sources.module';
import { ConnectionTokens } from '../document-system/connection-tokens.port';
import { ProvidersModule } from '../providers/providers.module';
import { AuthorizationRequestsRepository } from './authorization-requests.repository';
import { AuthorizationService } from './authorization.service';
import { ConnectionsController } from './connections.controller';
import { ConnectionsRepository } from './connections.repository';
import { ConnectionsService } from './connections.service';
import { OAuthCallbackController } from './oauth-callback.controller';
import { OAuthConnectionEntity } from './oauth-connection.entity';
import { OAuthConnectionTokens } from './oauth-connection-tokens';
import { OAuthTokenClient } from './oauth-token-client';
import { TokenRefresher } from './token-refresher';

/** Per-user OAuth connections; provides ConnectionTokens to data sources, the picker and sync. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([OAuthConnectionEntity]), ProvidersModule, DataSourcesModule],
  controllers: [ConnectionsController, OAuthCallbackController],
  providers: [
    AuthorizationRequestsRepository,
    AuthorizationService,
    ConnectionsRepository,
    ConnectionsService,
    OAuthTokenClient,
    TokenRefresher,
    { provide: ConnectionTokens, useClass: OAuthConnectionTokens },
  ],
  exports: [ConnectionTokens],
})
export class ConnectionsModule {}
