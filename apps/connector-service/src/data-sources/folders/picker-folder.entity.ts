import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A folder seen in the document system while browsing or locating: where it sits in the tree. */
@Entity('picker_folders')
export class PickerFolderEntity {
  @PrimaryColumn('uuid')
  dataSourceId: string;

  @PrimaryColumn('text')
  folderId: string;

  @Column('text', { nullable: true })
  parentId: string | null;

  @Column('text')
  name: string;

  @Column('text')
  path: string;

  /** Outermost (the workgroup's root folder) first; not the folder itself. */
  @Column('text', { array: true })
  ancestorIds: string[];

  @Column('timestamptz', { default: () => 'now()' })
  seenAt: Date;
}
