import { Injectable } from '@nestjs/common';

/** What other features hear about an OAuth connection. */
export type ConnectionEvent =
  /** Its refresh failed: the user must authorize again. */
  | { type: 'NeedsReauth'; connectionId: string }
  /** The user authorized again, as `subject` (OIDC `sub`) when the provider said. */
  | { type: 'Reauthorized'; connectionId: string; subject: string | null };

export interface ConnectionListener {
  onConnectionChange(event: ConnectionEvent): Promise<void>;
}

/**
 * Connection changes, told to the features that registered for them (data sources), so connections
 * depend on nobody downstream. Listeners run one after another and are awaited: when `publish`
 * resolves, every listener has acted, and a listener's failure reaches the publisher.
 */
@Injectable()
export class ConnectionEvents {
  private readonly listeners: ConnectionListener[] = [];

  listen(listener: ConnectionListener): void {
    this.listeners.push(listener);
  }

  async publish(event: ConnectionEvent): Promise<void> {
    for (const listener of this.listeners) await listener.onConnectionChange(event);
  }
}
