import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ApprovalDecisionEvent } from '@app/contracts';

/** One decision event per approval, written with the state change; the relay publishes it. */
@Entity('decision_outbox')
export class DecisionOutboxEntity {
  @PrimaryColumn('text')
  approvalId: string;

  @Column('jsonb')
  payload: ApprovalDecisionEvent;

  @Column('timestamptz')
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  publishedAt: Date | null;
}
