import type { Principal } from '@app/auth';
import type { Transaction } from '@app/database';
import type { ConnectionStatus } from '@app/contracts/views';
import type { AccessTokenSource } from './document-system.adapter';

export interface ConnectionSummary {
  id: string;
  tenantId: string;
  userId: string;
  providerId: string;
  /** The document-system identity the user authorized as, when the provider told us (OIDC `sub`). */
  subject: string | null;
  status: ConnectionStatus;
}

/**
 * What the data-source side needs from OAuth connections: ownership checks and access tokens. The
 * connections feature implements it; data sources, the picker and sync depend only on this.
 */
export abstract class ConnectionTokens {
  /** The caller's own connection (404 otherwise). */
  abstract ownConnection(principal: Principal, connectionId: string): Promise<ConnectionSummary>;

  /** Any connection of the tenant, for work done on a data source's behalf (404 otherwise). */
  abstract tenantConnection(tenantId: string, connectionId: string): Promise<ConnectionSummary>;

  /**
   * Keeps the connection from being deleted until `transaction` ends, for a data source being pointed at it
   * (a disconnect then waits, and finds it in use); 404 when it is gone already.
   */
  abstract holdForUse(transaction: Transaction, connectionId: string): Promise<void>;

  /** Access tokens of a connection; `refreshed()` forces a refresh (single-flight). */
  abstract tokenSource(connectionId: string): AccessTokenSource;
}
