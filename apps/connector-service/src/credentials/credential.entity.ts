import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

import type { CredentialScope } from '@app/contracts/views';

export type { CredentialScope };

/** A tenant-level document-system login (instance URL, username, password), reusable across data sources. */
@Entity('credentials')
@Index(['tenantId', 'createdAt'])
export class CredentialEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  tenantId: string;

  @Column('text')
  name: string;

  @Column('text')
  type: 'DocumentSystem';

  @Column('text')
  instanceUrl: string;

  @Column('text')
  username: string;

  /** AES-256-GCM ciphertext with its key id (SecretCipher). */
  @Column('text')
  passwordEncrypted: string;

  @Column('text')
  scope: CredentialScope;

  @Column('uuid', { nullable: true })
  projectId: string | null;

  /** The one data source a `DataSource`-scoped credential belongs to. */
  @Column('uuid', { nullable: true })
  dataSourceId: string | null;

  /** The last check's time and outcome; null until checked, and again when the login changes. */
  @Column('timestamptz', { nullable: true })
  validatedAt: Date | null;

  @Column('boolean', { nullable: true })
  validationValid: boolean | null;

  /** Why the last check failed, in the document system's words (never a secret). */
  @Column('text', { nullable: true })
  validationError: string | null;

  @Column('text')
  createdBy: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
