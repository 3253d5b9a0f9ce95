import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { DocumentExtractionStatus } from '@app/contracts/views';

export type { DocumentExtractionStatus };

const bigint = { to: (v: number) => v, from: (v: string) => Number(v) };

/** An ingested file: where it sits in the document system, its bytes (by hash) and its text. */
@Entity('documents')
export class DocumentEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  tenantId: string;

  @Column('uuid')
  dataSourceId: string;

  @Column('text')
  externalId: string;

  @Column('text')
  folderId: string;

  @Column('text')
  name: string;

  @Column('text')
  path: string;

  @Column('text')
  mimeType: string;

  @Column('bigint', { transformer: bigint })
  size: number;

  @Column('text', { nullable: true })
  version: string | null;

  @Column('timestamptz', { nullable: true })
  modifiedAt: Date | null;

  /** The checksum the document system reported, if any. */
  @Column('text', { nullable: true })
  remoteSha256: string | null;

  /** Null when the content was not stored (extraction `Skipped`). */
  @Column('text', { nullable: true })
  contentSha256: string | null;

  @Column('text')
  extractionStatus: DocumentExtractionStatus;

  @Column('text', { nullable: true })
  extractionError: string | null;

  @Column('text', { select: false })
  text: string;

  @Column('uuid')
  lastSeenRunId: string;

  @Column('timestamptz')
  ingestedAt: Date;

  @Column('timestamptz')
  updatedAt: Date;
}
