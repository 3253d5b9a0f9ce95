import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One version of a provider's client secret, AES-256-GCM encrypted (SecretCipher). */
@Entity('oauth_provider_secrets')
export class ProviderSecretEntity {
  @PrimaryColumn('uuid')
  providerId: string;

  @PrimaryColumn('int')
  version: number;

  @Column('text')
  secretEncrypted: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
