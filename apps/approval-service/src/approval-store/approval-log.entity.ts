import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { LogEntryType } from './approval-state';

/** The execution log of an approval: every request, attempt, callback and decision. */
@Entity('approval_log')
export class ApprovalLogEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id: string;

  @Column('uuid')
  approvalId: string;

  @Column('timestamptz')
  at: Date;

  @Column('text')
  type: LogEntryType;

  @Column('int', { nullable: true })
  attempt: number | null;

  @Column('int', { nullable: true })
  httpStatus: number | null;

  @Column('int', { nullable: true })
  durationMs: number | null;

  @Column('text', { nullable: true })
  error: string | null;

  @Column('text', { nullable: true })
  comment: string | null;

  /** On a Decided entry: who decided, as the callback named them. */
  @Column('text', { nullable: true })
  decidedBy: string | null;

  /** On a reminder's DeliveryAttempt entry: which reminder it was (1, 2, …). */
  @Column('int', { nullable: true })
  reminder: number | null;
}
