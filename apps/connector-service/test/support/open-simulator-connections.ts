import { ConnectionSummary, ConnectionTokens } from '../../src/document-system/connection-tokens.port';

/**
 * For benchmarks and child-process workers: every connection id is an active connection whose access tokens
 * come from the simulator's admin API at `simulatorUrl`.
 */
export class OpenSimulatorConnections extends ConnectionTokens {
  private readonly tokens = new Map<string, string>();

  constructor(private readonly simulatorUrl: string) {
    super();
  }

  async ownConnection(
    principal: { tenantId: string; userId: string },
    connectionId: string,
  ): Promise<ConnectionSummary> {
    return {
      id: connectionId,
      tenantId: principal.tenantId,
      userId: principal.userId,
      providerId: 'simulator',
      subject: null,
      status: 'Active',
    };
  }

  async tenantConnection(tenantId: string, connectionId: string): Promise<ConnectionSummary> {
    return { id: connectionId, tenantId, userId: 'any', providerId: 'simulator', subject: null, status: 'Active' };
  }

  /** Its connections are not rows: nothing deletes them. */
  async holdForUse(): Promise<void> {}

  tokenSource(connectionId: string) {
    return {
      current: async () => this.tokens.get(connectionId) ?? this.fresh(connectionId),
      refreshed: () => this.fresh(connectionId),
    };
  }

  private async fresh(connectionId: string): Promise<string> {
    const res = await fetch(`${this.simulatorUrl}/admin/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'worker', ttlSeconds: 3600 }),
    });
    const { accessToken } = (await res.json()) as { accessToken: string };
    this.tokens.set(connectionId, accessToken);
    return accessToken;
  }
}
