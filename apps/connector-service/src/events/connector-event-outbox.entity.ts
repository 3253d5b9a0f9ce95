import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One event to the agent runtime, written with the state change it reports; the relay publishes it. */
@Entity('connector_event_outbox')
export class ConnectorEventOutboxEntity {
  /** The Bull job id on `connector-events`: stable, so publishing twice adds one job. */
  @PrimaryColumn('text')
  eventId: string;

  /** The job name, e.g. `SyncCompleted`. */
  @Column('text')
  type: string;

  @Column('jsonb')
  payload: object;

  @Column('timestamptz')
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  publishedAt: Date | null;
}
