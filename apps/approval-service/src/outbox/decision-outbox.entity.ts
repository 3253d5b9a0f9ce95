import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ApprovalDecisionEvent } from '@app/contracts/payloads';

/** One decision event per approval id, written with the state change; the relay publishes it. */
@Entity('decision_outbox')
export class DecisionOutboxEntity {
  @PrimaryColumn('text')
  approvalId: string;

  /** Null for an approval's decision (its event is built from the approval); a refused request's event. */
  @Column('jsonb', { nullable: true })
  payload: ApprovalDecisionEvent | null;

  @Column('timestamptz')
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  publishedAt: Date | null;
}
