import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { WebhookAuthType } from '@app/contracts/views';
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

  /** Free-form json keeps its keys as sent (jsonb reorders them); json has no `=`, so compare as ::jsonb. */
  @Column('json', { nullable: true })
  stepInput: unknown;

  @Column('json', { nullable: true })
  previousResults: unknown;

  @Column('text')
  webhookUrl: string;

  @Column('text')
  authType: WebhookAuthType;

  /** The auth values (key, token, password, header value) as one encrypted JSON document. */
  @Column('text', { nullable: true })
  authEncrypted: string | null;

  /** Keyed fingerprint of the webhook, agentName and message a repeat must match (SecretCipher.fingerprint). */
  @Column('text', { nullable: true })
  requestFingerprint: string | null;

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
   * The callback token, encrypted, kept only while the approval is open (Pending or AwaitingDecision)
   * so a retry, a restarted worker or a redelivery can send it again; cleared by every final move.
   */
  @Column('text', { nullable: true, select: false })
  callbackTokenSealed: string | null;

  @Column('text')
  status: ApprovalStatus;

  @Column('text', { nullable: true })
  comment: string | null;

  @Column('timestamptz', { nullable: true })
  decidedAt: Date | null;

  /** Who decided, as the callback named them. */
  @Column('text', { nullable: true })
  decidedBy: string | null;

  /** The JSON object the callback handed back with its decision. */
  @Column('json', { nullable: true })
  output: Record<string, unknown> | null;

  /** While awaiting its decision, the webhook goes again every this many seconds (from the request); null: never. */
  @Column('int', { nullable: true })
  remindAfterSeconds: number | null;

  /** The last interval since the request a reminder was claimed in (ApprovalsRepository.claimReminder). */
  @Column('int', { default: 0, select: false })
  reminderRound: number;

  @Column('int', { default: 0, select: false })
  remindersSent: number;

  /** The delivery attempt number the last reminder took. */
  @Column('int', { nullable: true, select: false })
  reminderAttempt: number | null;

  /** The last number an extra attempt (a reminder, a redelivery) took: they take them one at a time. */
  @Column('int', { nullable: true, select: false })
  lastExtraAttempt: number | null;

  /** When the receiver answered 410 Gone to an extra attempt: no reminder follows (ApprovalsRepository.recordAttempts). */
  @Column('timestamptz', { nullable: true, select: false })
  remindersStoppedAt: Date | null;

  /** The round the reminders wait for: every round before it has run (RemindersService.remind sets it). */
  @Column('int', { default: 1, select: false })
  reminderNextRound: number;

  /** When that round is due; null without reminders. Past it by a margin, the workers' sweep adds its job again. */
  @Column('timestamptz', { nullable: true, select: false })
  reminderNextAt: Date | null;

  /** When an undecided approval times out; null: no limit. */
  @Column('timestamptz', { nullable: true })
  decisionDueAt: Date | null;

  /** Callbacks refused for a wrong token; only the first MAX_LOGGED_REJECTIONS are in the log. */
  @Column('int', { default: 0 })
  rejectedCallbacks: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
