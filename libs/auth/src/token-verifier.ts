import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { decodeProtectedHeader, JWTPayload, jwtVerify, JWTVerifyOptions } from 'jose';
import { BaseEnv } from '@app/config';
import type { Principal } from './principal';
import { RemoteKeySet } from './remote-key-set';

export interface VerifiedToken {
  principal: Principal;
  expiresAt: Date;
}

/**
 * Verifies platform JWTs: HS256 with AUTH_JWT_SECRET, or RS256 from AUTH_JWKS_URL when set. Every
 * token must expire (`exp`), within JWT_MAX_TTL of its `iat` and of now; `iss` and `aud` must match
 * AUTH_JWT_ISSUER / AUTH_JWT_AUDIENCE when set.
 */
@Injectable()
export class TokenVerifier implements OnModuleDestroy {
  private readonly secret: Uint8Array;
  private readonly jwks?: RemoteKeySet;
  private readonly rules: JWTVerifyOptions;
  private readonly maxTtlSeconds: number;

  constructor(env: BaseEnv) {
    this.secret = new TextEncoder().encode(env.AUTH_JWT_SECRET);
    const jwksUrl = env.AUTH_JWKS_URL;
    if (jwksUrl) this.jwks = new RemoteKeySet(jwksUrl);
    this.maxTtlSeconds = env.JWT_MAX_TTL;
    this.rules = {
      requiredClaims: ['exp'],
      ...(env.AUTH_JWT_ISSUER ? { issuer: env.AUTH_JWT_ISSUER } : {}),
      ...(env.AUTH_JWT_AUDIENCE ? { audience: env.AUTH_JWT_AUDIENCE } : {}),
    };
  }

  /** Resolves the principal, or null for any invalid, expired, non-expiring or incomplete token. */
  async verify(token: string): Promise<Principal | null> {
    return (await this.verifyToken(token))?.principal ?? null;
  }

  /** The principal and when the token expires, or null as for `verify`. */
  async verifyToken(token: string): Promise<VerifiedToken | null> {
    try {
      const { alg } = decodeProtectedHeader(token);
      const { payload } =
        alg === 'RS256' && this.jwks
          ? await jwtVerify(token, this.jwks.key, { ...this.rules, algorithms: ['RS256'] })
          : await jwtVerify(token, this.secret, { ...this.rules, algorithms: ['HS256'] });
      const principal = livesWithin(payload, this.maxTtlSeconds) ? toPrincipal(payload) : null;
      return principal && { principal, expiresAt: new Date(payload.exp! * 1000) };
    } catch {
      return null;
    }
  }

  onModuleDestroy(): void {
    this.jwks?.close();
  }
}

/**
 * `exp - iat` at most `maxTtlSeconds`. A token without `iat`, or with one still to come, counts from
 * now: it is taken only while it has at most that long left, so no token taken today lives longer.
 */
function livesWithin(payload: JWTPayload, maxTtlSeconds: number): boolean {
  const now = Math.floor(Date.now() / 1000);
  const issuedAt = typeof payload.iat === 'number' ? Math.min(payload.iat, now) : now;
  return typeof payload.exp === 'number' && payload.exp - issuedAt <= maxTtlSeconds;
}

function toPrincipal(payload: JWTPayload): Principal | null {
  const { sub, tenant, roles } = payload as JWTPayload & { tenant?: unknown; roles?: unknown };
  if (typeof sub !== 'string' || !sub || typeof tenant !== 'string' || !tenant) return null;
  const roleList = Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [];
  return { userId: sub, tenantId: tenant, roles: roleList };
}
