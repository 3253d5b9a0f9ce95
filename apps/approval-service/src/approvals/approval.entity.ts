import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { WebhookAuthType } from '@app/contracts';
import type { ApprovalStatus } from './approval-state';

@Entity('approvals')
export class ApprovalEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  tenantId: string;

  @Column('text')
  executionId: string;

  @Column('text')
  stepId: string;

  @Column('text')
  agentName: string;

  @Column('text')
  message: string;

  @Column('jsonb', { nullable: true })
  stepInput: unknown;

  @Column('jsonb', { nullable: true })
  previousResults: unknown;

  @Column('text')
  webhookUrl: string;

  @Column('text')
  authType: WebhookAuthType;

  /** The auth values (key, token, password, header value) as one encrypted JSON document. */
  @Column('text', { nullable: true })
  authEncrypted: string | null;

  @Column('int')
  timeoutSeconds: number;

  @Column('int')
  maxRetryAttempts: number;

  @Column('uuid')
  callbackId: string;

  /** SHA-256 (hex) of the callback token; the token itself is never stored. */
  @Column('text')
  callbackTokenHash: string;

  /**
   * The callback token, encrypted, kept only while the approval is Pending so a retry or a restarted
   * worker can deliver it again; cleared the moment delivery ends.
   */
  @Column('text', { nullable: true, select: false })
  callbackTokenSealed: string | null;

  @Column('text')
  status: ApprovalStatus;

  @Column('text', { nullable: true })
  comment: string | null;

  @Column('timestamptz', { nullable: true })
  decidedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
