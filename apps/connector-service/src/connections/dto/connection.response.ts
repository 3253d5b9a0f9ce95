import type { ConnectionView } from '@app/contracts/views';
import { connectionStatus, OAuthConnectionEntity } from '../oauth-connection.entity';

/** A connection as its owner sees it: never a token, only whether a refresh token is held. */
export function connectionResponse(c: OAuthConnectionEntity): ConnectionView {
  return {
    id: c.id,
    providerId: c.providerId,
    status: connectionStatus(c),
    scopes: c.scopes,
    expiresAt: c.expiresAt?.toISOString() ?? null,
    hasRefreshToken: c.refreshTokenEncrypted !== null,
    secretVersion: c.secretVersion,
    createdAt: c.createdAt.toISOString(),
    ...(c.status === 'NeedsReauth' && c.lastRefreshError ? { problem: c.lastRefreshError } : {}),
  };
}
