import type { ConnectorEnv } from '../connector-env';
import type { ConnectionsRepository } from './connections.repository';
import type { SecretCipher } from '@app/crypto';
import { RefreshLeases } from './refresh-leases';

describe('RefreshLeases.isFresh', () => {
  // isFresh reads neither the database nor a secret.
  const env = { OAUTH_REFRESH_AHEAD_SECONDS: 60, OAUTH_HTTP_TIMEOUT_MS: 10_000 } as ConnectorEnv;
  const sut = new RefreshLeases(
    undefined as unknown as ConnectionsRepository,
    undefined as unknown as SecretCipher,
    env,
  );
  const at = (seconds: number) => new Date(Date.now() + seconds * 1000);

  it('refreshes a long-lived token in the refresh-ahead window, a short-lived one at half its life', () => {
    expect(sut.isFresh({ tokensIssuedAt: at(-3000), expiresAt: at(600) })).toBe(true);
    expect(sut.isFresh({ tokensIssuedAt: at(-3000), expiresAt: at(59) })).toBe(false);
    expect(sut.isFresh({ tokensIssuedAt: at(-10), expiresAt: at(20) })).toBe(true);
    expect(sut.isFresh({ tokensIssuedAt: at(-20), expiresAt: at(10) })).toBe(false);
  });

  it('never takes an expired token for fresh, though its issue time (the database clock) reads after its expiry', () => {
    expect(sut.isFresh({ tokensIssuedAt: at(100), expiresAt: at(-10) })).toBe(false);
    expect(sut.isFresh({ tokensIssuedAt: at(100), expiresAt: at(5) })).toBe(true);
  });
});
