import { DomainException } from '@app/errors';
import { OAuthErrorResponse } from './oauth-token-client';

export enum ConnectionErrorCode {
  NotFound = 'CONNECTION_NOT_FOUND',
  InUse = 'CONNECTION_IN_USE',
  StateInvalid = 'OAUTH_STATE_INVALID',
  StateExpired = 'OAUTH_STATE_EXPIRED',
  StateUsed = 'OAUTH_STATE_USED',
  StateNotBound = 'STATE_NOT_BOUND',
  InvalidScope = 'OAUTH_INVALID_SCOPE',
  RedirectUriMismatch = 'OAUTH_REDIRECT_URI_MISMATCH',
  InvalidClient = 'OAUTH_INVALID_CLIENT',
  InvalidGrant = 'OAUTH_INVALID_GRANT',
  AccessDenied = 'OAUTH_ACCESS_DENIED',
  InvalidIdToken = 'OAUTH_INVALID_ID_TOKEN',
  ProviderError = 'OAUTH_PROVIDER_ERROR',
  ProviderUnavailable = 'OAUTH_PROVIDER_UNAVAILABLE',
}

/** SPEC.md's error table, as resolutions a user can act on. */
export const GUIDANCE = {
  redirectUri: (redirectUri: string) =>
    `Register exactly ${redirectUri} as the client's redirect URI (no trailing slash, correct host).`,
  invalidClient: (redirectUri: string) =>
    `Check the client ID and secret, register exactly ${redirectUri} as the redirect URI, and set behaviour.tokenEndpointAuthMethod to CLIENT_SECRET_BASIC if the token endpoint requires Basic auth.`,
  invalidScope:
    'Enable the scopes openid and offline_access for the client at the provider, or drop offline_access from the connector.',
  refreshFailed:
    'Re-authenticate. If refresh keeps failing after the first hour: include offline_access in the connector scopes, and set CLIENT_SECRET_BASIC if the token endpoint requires Basic auth.',
  startAgain:
    'Start the connection again from the data source (the authorization link is single-use and valid for 10 minutes).',
};

export class ConnectionException extends DomainException {
  static notFound() {
    return new ConnectionException(404, ConnectionErrorCode.NotFound, 'Connection not found');
  }

  static inUse(count: number) {
    return new ConnectionException(
      409,
      ConnectionErrorCode.InUse,
      `The connection is used by ${count} data source(s); remove them or switch them to another connection first`,
    );
  }

  static state(
    code: ConnectionErrorCode.StateInvalid | ConnectionErrorCode.StateExpired | ConnectionErrorCode.StateUsed,
  ) {
    const what = { OAUTH_STATE_INVALID: 'unknown', OAUTH_STATE_EXPIRED: 'expired', OAUTH_STATE_USED: 'already used' }[
      code
    ];
    return new ConnectionException(400, code, `The authorization state is ${what}`, [
      { resolution: GUIDANCE.startAgain },
    ]);
  }

  /** The callback came to a browser that did not begin the authorization (a forwarded link), or without its cookie. */
  static stateNotBound() {
    return new ConnectionException(
      400,
      ConnectionErrorCode.StateNotBound,
      'This authorization was started in another browser (or this browser did not keep its cookie): nothing was connected',
      [
        {
          resolution:
            'Start again: open the console in this browser and click Connect there. Never finish a sign-in link someone sent you.',
        },
      ],
    );
  }

  static invalidIdToken(reason: string) {
    return new ConnectionException(
      400,
      ConnectionErrorCode.InvalidIdToken,
      `The provider's id_token was rejected: ${reason}`,
      [{ resolution: GUIDANCE.startAgain }],
    );
  }

  static unavailable(reason: string) {
    return new ConnectionException(
      502,
      ConnectionErrorCode.ProviderUnavailable,
      `The OAuth provider is unavailable: ${reason}`,
      [{ resolution: 'Try again; if it persists, check the provider endpoints of the connector.' }],
    );
  }

  /** An error from the provider, at the authorization endpoint (redirect) or the token endpoint. */
  static fromProvider(error: OAuthErrorResponse | { error: string; description?: string }, redirectUri: string) {
    const said = error.description ? `${error.error}: ${error.description}` : error.error;
    if (/redirect_uri/i.test(said)) {
      return new ConnectionException(400, ConnectionErrorCode.RedirectUriMismatch, `redirect_uri mismatch (${said})`, [
        { resolution: GUIDANCE.redirectUri(redirectUri) },
      ]);
    }
    switch (error.error) {
      case 'invalid_scope':
        return new ConnectionException(400, ConnectionErrorCode.InvalidScope, `invalid_scope (${said})`, [
          { resolution: GUIDANCE.invalidScope },
        ]);
      case 'invalid_client':
      case 'unauthorized_client':
        return new ConnectionException(400, ConnectionErrorCode.InvalidClient, `invalid client (${said})`, [
          { resolution: GUIDANCE.invalidClient(redirectUri) },
        ]);
      case 'invalid_grant':
        return new ConnectionException(
          400,
          ConnectionErrorCode.InvalidGrant,
          `The provider rejected the authorization code (${said})`,
          [{ resolution: GUIDANCE.startAgain }],
        );
      case 'access_denied':
        return new ConnectionException(
          400,
          ConnectionErrorCode.AccessDenied,
          'The authorization was denied at the provider',
          [{ resolution: 'Connect again and approve the access request.' }],
        );
      default:
        return new ConnectionException(400, ConnectionErrorCode.ProviderError, `The provider answered ${said}`, [
          { resolution: GUIDANCE.startAgain },
        ]);
    }
  }
}
