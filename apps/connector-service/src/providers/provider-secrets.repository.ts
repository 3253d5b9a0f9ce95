import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SecretCipher } from '@app/crypto';
import { managerOf, Transaction } from '@app/database';
import { ProviderSecretEntity } from './provider-secret.entity';

/**
 * The versioned client secrets of providers. The current version signs every new request; an older
 * version is kept while a connection was issued under it (the refresh fallback on invalid_client).
 */
@Injectable()
export class ProviderSecretsRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly cipher: SecretCipher,
  ) {}

  async add(transaction: Transaction, providerId: string, version: number, secret: string): Promise<void> {
    await managerOf(transaction).insert(ProviderSecretEntity, {
      providerId,
      version,
      secretEncrypted: this.cipher.encrypt(secret),
    });
  }

  /** The secret of one version in the clear, or null when that version is gone. */
  async secret(providerId: string, version: number): Promise<string | null> {
    const row = await this.db.getRepository(ProviderSecretEntity).findOneBy({ providerId, version });
    return row ? this.cipher.decrypt(row.secretEncrypted) : null;
  }

  /** Drops every version older than `version`, whoever was issued under it: they belong to endpoints left behind. */
  async dropOlderThan(transaction: Transaction, providerId: string, version: number): Promise<void> {
    await managerOf(transaction).query(
      `DELETE FROM connector.oauth_provider_secrets WHERE "providerId" = $1 AND version < $2`,
      [providerId, version],
    );
  }

  /** Drops the versions older than the current one that no connection was issued under. */
  async prune(providerId: string, transaction?: Transaction): Promise<void> {
    const manager = transaction ? managerOf(transaction) : this.db.manager;
    await manager.query(
      `DELETE FROM connector.oauth_provider_secrets s
       USING connector.oauth_providers p
       WHERE s."providerId" = $1 AND p.id = s."providerId" AND s.version < p."secretVersion"
         AND NOT EXISTS (SELECT 1 FROM connector.oauth_connections c WHERE c."providerId" = s."providerId" AND c."secretVersion" = s.version)`,
      [providerId],
    );
  }
}
