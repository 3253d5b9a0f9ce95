import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

import type { TokenEndpointAuthMethod } from '@app/contracts/views';

export { TOKEN_ENDPOINT_AUTH_METHODS } from '@app/contracts/views';
export type { TokenEndpointAuthMethod };

/** An OAuth 2.0 / OpenID Connect client registration of a tenant (the admin's "OAuth connector"). */
@Entity('oauth_providers')
@Index(['tenantId', 'createdAt'])
export class OAuthProviderEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  tenantId: string;

  @Column('text')
  name: string;

  @Column('text')
  provider: 'GenericOAuth';

  @Column('text')
  authenticationType: 'StaticUserOauth';

  @Column('text')
  clientId: string;

  @Column('text')
  authorizationEndpoint: string;

  @Column('text')
  tokenEndpoint: string;

  /** "" when the provider has none. */
  @Column('text', { default: '' })
  revokeEndpoint: string;

  @Column('text', { array: true })
  supportedScopes: string[];

  @Column('text')
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;

  /** The current client secret's version (see oauth_provider_secrets). */
  @Column('int', { default: 1 })
  secretVersion: number;

  @Column('text')
  createdBy: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
