import { Injectable } from '@nestjs/common';
import { CredentialsService } from '../credentials/credentials.service';
import { ConnectionTokens } from '../document-system/connection-tokens.port';
import {
  DocumentSystemAdapter,
  DocumentSystemSession,
  OpenSessionOptions,
} from '../document-system/document-system.adapter';
import { DataSourceException } from './data-source.exception';
import { originOf } from './instance-origin';

/**
 * Opens a document-system session for a data source: its credential's login, its connection's tokens,
 * at the instance origin recorded for it only (409 REAUTH_REQUIRED when the credential points elsewhere).
 */
@Injectable()
export class DocumentSystemSessions {
  constructor(
    private readonly adapter: DocumentSystemAdapter,
    private readonly credentials: CredentialsService,
    private readonly connections: ConnectionTokens,
  ) {}

  async forDataSource(
    source: {
      tenantId: string;
      credentialId: string;
      connectionId: string;
      instanceOrigin: string;
    },
    options: Pick<OpenSessionOptions, 'budget'> = {},
  ): Promise<DocumentSystemSession> {
    const { credential, password } = await this.credentials.loginFor(source.tenantId, source.credentialId);
    // The credential is read afresh: a move since the data source was loaded is caught here.
    if (originOf(credential.instanceUrl) !== source.instanceOrigin) throw DataSourceException.instanceMoved();
    const connectionId = source.connectionId;
    await this.connections.tenantConnection(source.tenantId, connectionId);
    return this.adapter.openSession(
      source.tenantId,
      { instanceUrl: credential.instanceUrl, username: credential.username, password },
      this.connections.tokenSource(connectionId),
      options,
    );
  }
}
