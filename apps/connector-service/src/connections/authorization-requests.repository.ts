import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { failedWith, SqlState } from '../common/sql-state';

/** A started authorization: what the callback needs to finish it, bound to its state (stored hashed). */
export interface AuthorizationRequest {
  id: string;
  tenantId: string;
  userId: string;
  providerId: string;
  codeVerifierEncrypted: string;
  nonceHash: string;
  redirectUri: string;
  scopes: string[];
  expiresAt: Date;
  consumedAt: Date | null;
  /** SHA-256 of the cookie set in the browser that began it; null for those begun before cookies were set. */
  browserBindingHash: string | null;
}

/** The most started authorizations one user has at a time: a popup opened again and again costs no more. */
const REQUESTS_PER_USER = 20;

export type ConsumeOutcome = { request: AuthorizationRequest } | { problem: 'unknown' | 'expired' | 'used' };

@Injectable()
export class AuthorizationRequestsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Stores the request; false when its provider is gone (deleted since it was read). */
  async create(stateHash: string, request: Omit<AuthorizationRequest, 'id' | 'consumedAt'>): Promise<boolean> {
    try {
      await this.db.query(
        `INSERT INTO connector.oauth_authorization_requests
           ("stateHash", "tenantId", "userId", "providerId", "codeVerifierEncrypted", "nonceHash", "redirectUri", scopes,
            "expiresAt", "browserBindingHash")
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          stateHash,
          request.tenantId,
          request.userId,
          request.providerId,
          request.codeVerifierEncrypted,
          request.nonceHash,
          request.redirectUri,
          request.scopes,
          request.expiresAt,
          request.browserBindingHash,
        ],
      );
    } catch (error) {
      if (failedWith(error, SqlState.ForeignKeyViolation)) return false;
      throw error;
    }
    // Old requests are kept a day so a late callback is told "expired", not "unknown".
    await this.db.query(
      `DELETE FROM connector.oauth_authorization_requests WHERE "expiresAt" < now() - interval '1 day'`,
    );
    // A user's requests are bounded, whatever they ask: the oldest past the last REQUESTS_PER_USER go.
    await this.db.query(
      `DELETE FROM connector.oauth_authorization_requests WHERE "stateHash" IN (
         SELECT "stateHash" FROM connector.oauth_authorization_requests WHERE "tenantId" = $1 AND "userId" = $2
         ORDER BY "expiresAt" DESC OFFSET $3)`,
      [request.tenantId, request.userId, REQUESTS_PER_USER],
    );
    return true;
  }

  /** Single use: the one conditional update that marks it consumed wins; everyone else learns why not. */
  async consume(stateHash: string): Promise<ConsumeOutcome> {
    const [rows] = await this.db.query(
      `UPDATE connector.oauth_authorization_requests SET "consumedAt" = now()
       WHERE "stateHash" = $1 AND "consumedAt" IS NULL AND "expiresAt" > now()
       RETURNING *`,
      [stateHash],
    );
    if (rows.length) return { request: rows[0] as AuthorizationRequest };
    const [seen] = await this.db.query(
      `SELECT "consumedAt" FROM connector.oauth_authorization_requests WHERE "stateHash" = $1`,
      [stateHash],
    );
    if (!seen) return { problem: 'unknown' };
    return { problem: seen.consumedAt ? 'used' : 'expired' };
  }
}
