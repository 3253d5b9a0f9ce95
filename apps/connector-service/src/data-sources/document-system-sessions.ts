import { Injectable } from '@nestjs/common';
import { CredentialsService } from '../credentials/credentials.service';
import { ConnectionTokens } from '../document-system/connection-tokens.port';
import { DocumentSystemAdapter, DocumentSystemSession } from '../document-system/document-system.adapter';

/** Opens a document-system session for a data source: its credential's login, its connection's tokens. */
@Injectable()
export class DocumentSystemSessions {
  constructor(
    private readonly adapter: DocumentSystemAdapter,
    private readonly credentials: CredentialsService,
    private readonly connections: ConnectionTokens,
  ) {}

  async forDataSource(source: {
    tenantId: string;
    credentialId: string;
    connectionId: string;
  }): Promise<DocumentSystemSession> {
    return this.open(source.tenantId, source.credentialId, source.connectionId);
  }

  async open(tenantId: string, credentialId: string, connectionId: string): Promise<DocumentSystemSession> {
    const { credential, password } = await this.credentials.loginFor(tenantId, credentialId);
    await this.connections.tenantConnection(tenantId, connectionId);
    return this.adapter.openSession(
      { instanceUrl: credential.instanceUrl, username: credential.username, password },
      this.connections.tokenSource(connectionId),
    );
  }
}
