import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  VirtualColumn,
} from 'typeorm';
import type { SelectionMark } from '@app/contracts/views';
import type { IngestionStatus } from './ingestion-status';

@Entity('data_sources')
@Index(['tenantId', 'projectId'])
export class DataSourceEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  tenantId: string;

  @Column('uuid')
  projectId: string;

  @Column('text')
  name: string;

  @Column('uuid')
  credentialId: string;

  @Column('uuid')
  connectionId: string;

  /** The origin of the credential's instanceUrl its creator (or an admin) chose: its tokens go there only. */
  @Column('text')
  instanceOrigin: string;

  /** The credential's instanceUrl now, read with the data source (not stored here). */
  @VirtualColumn({
    type: 'text',
    query: (alias) => `SELECT c."instanceUrl" FROM connector.credentials c WHERE c.id = ${alias}."credentialId"`,
  })
  credentialInstanceUrl?: string | null;

  /** Explicit include/exclude marks with each folder's ancestors (see selection-rules). */
  @Column('jsonb', { default: [] })
  selection: SelectionMark[];

  @Column('text')
  ingestionStatus: IngestionStatus;

  @Column('int', { nullable: true })
  scheduleIntervalMinutes: number | null;

  @Column('timestamptz', { nullable: true })
  nextScheduledSyncAt: Date | null;

  /** The document-system identity the selection was made as; another identity discards it. */
  @Column('text', { nullable: true })
  selectionSubject: string | null;

  @Column('text')
  createdBy: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
