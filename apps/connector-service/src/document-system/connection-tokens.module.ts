import { Global, Module } from '@nestjs/common';
import { DomainException } from '@app/errors';
import { ConnectionTokens } from './connection-tokens.port';

/** Placeholder until OAuth connections land: every connection is unknown. */
class NoConnections extends ConnectionTokens {
  private fail(): never {
    throw new DomainException(404, 'CONNECTION_NOT_FOUND', 'Connection not found');
  }
  ownConnection = async () => this.fail();
  tenantConnection = async () => this.fail();
  tokenSource = () => ({ current: async () => this.fail(), refreshed: async () => this.fail() });
}

@Global()
@Module({ providers: [{ provide: ConnectionTokens, useClass: NoConnections }], exports: [ConnectionTokens] })
export class ConnectionTokensModule {}
