import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A user who may read a data source, its documents and its search hits. */
@Entity('data_source_members')
export class DataSourceMemberEntity {
  @PrimaryColumn('uuid')
  dataSourceId: string;

  @PrimaryColumn('text')
  userId: string;

  @Column('text')
  addedBy: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
