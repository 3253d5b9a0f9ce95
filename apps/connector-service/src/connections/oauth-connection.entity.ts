import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { ConnectionStatus } from '@app/contracts/views';

/** A user's authorization of a provider: the tokens it issued (encrypted) and under which secret version. */
@Entity('oauth_connections')
export class OAuthConnectionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  tenantId: string;

  @Column('text')
  userId: string;

  @Column('uuid')
  providerId: string;

  /** Stored states; `Expired` is derived (no refresh token and the access token has expired). */
  @Column('text')
  status: Exclude<ConnectionStatus, 'Expired'>;

  /** The document-system identity (OpenID Connect `sub`), when the provider issued an id_token. */
  @Column('text', { nullable: true })
  subject: string | null;

  @Column('text', { array: true })
  scopes: string[];

  @Column('text')
  accessTokenEncrypted: string;

  @Column('text', { nullable: true })
  refreshTokenEncrypted: string | null;

  @Column('timestamptz', { nullable: true })
  expiresAt: Date | null;

  /** When the current access token was issued; a caller that saw an older one knows a refresh happened. */
  @Column('timestamptz')
  tokensIssuedAt: Date;

  /** The client secret version the tokens were issued under (the refresh fallback on invalid_client). */
  @Column('int')
  secretVersion: number;

  @Column('text', { nullable: true })
  lastRefreshError: string | null;

  /** The refresh under way at the token endpoint, if any, and when its claim lapses should its process die. */
  @Column('uuid', { nullable: true })
  refreshLeaseId: string | null;

  @Column('timestamptz', { nullable: true })
  refreshLeaseUntil: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}

export type { ConnectionStatus };

export function connectionStatus(
  c: Pick<OAuthConnectionEntity, 'status' | 'refreshTokenEncrypted' | 'expiresAt'>,
  now = new Date(),
): ConnectionStatus {
  if (c.status === 'NeedsReauth') return 'NeedsReauth';
  if (!c.refreshTokenEncrypted && c.expiresAt && c.expiresAt <= now) return 'Expired';
  return 'Active';
}
