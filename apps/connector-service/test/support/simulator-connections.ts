import { randomUUID } from 'node:crypto';
import type { Principal } from '@app/auth';
import { DomainException } from '@app/errors';
import { ConnectionSummary, ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import type { RunningSimulator } from '@app/testing';

/**
 * Connections whose access tokens come straight from the simulator's admin API. Stands in for the OAuth
 * connections feature in tests of data sources and sync; counts refreshes.
 */
export class SimulatorConnections extends ConnectionTokens {
  refreshes = 0;
  private readonly tokens = new Map<string, string>();
  private readonly owners = new Map<string, { tenantId: string; userId: string; subject: string | null }>();

  constructor(
    private readonly sim: RunningSimulator,
    private readonly ttlSeconds = 3600,
  ) {
    super();
  }

  /** A connection owned by the caller. */
  connect(principal: Pick<Principal, 'tenantId' | 'userId'>, subject: string | null = null): string {
    const id = randomUUID();
    this.owners.set(id, { tenantId: principal.tenantId, userId: principal.userId, subject });
    return id;
  }

  async ownConnection(principal: Principal, connectionId: string): Promise<ConnectionSummary> {
    const owner = this.owners.get(connectionId);
    if (!owner || owner.tenantId !== principal.tenantId || owner.userId !== principal.userId) throw notFound();
    return this.summary(connectionId);
  }

  async tenantConnection(tenantId: string, connectionId: string): Promise<ConnectionSummary> {
    if (this.owners.get(connectionId)?.tenantId !== tenantId) throw notFound();
    return this.summary(connectionId);
  }

  /** Its connections are not rows: nothing deletes them. */
  async holdForUse(): Promise<void> {}

  tokenSource(connectionId: string) {
    return {
      current: async () => this.tokens.get(connectionId) ?? this.fresh(connectionId),
      refreshed: async () => {
        this.refreshes++;
        return this.fresh(connectionId);
      },
    };
  }

  private async fresh(connectionId: string): Promise<string> {
    const token = await this.sim.accessToken(this.ttlSeconds);
    this.tokens.set(connectionId, token);
    return token;
  }

  private summary(id: string): ConnectionSummary {
    const owner = this.owners.get(id)!;
    return {
      id,
      tenantId: owner.tenantId,
      userId: owner.userId,
      providerId: 'simulator',
      subject: owner.subject,
      status: 'Active',
    };
  }
}

const notFound = () => new DomainException(404, 'CONNECTION_NOT_FOUND', 'Connection not found');
