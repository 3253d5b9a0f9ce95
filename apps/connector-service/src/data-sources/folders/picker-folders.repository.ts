import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { firstOfEach } from './first-of-each';
import { PickerFolderEntity } from './picker-folder.entity';

export type PickerFolder = Omit<PickerFolderEntity, 'seenAt'>;

/** The folders seen in a data source's document system, where each sits in the tree. */
@Injectable()
export class PickerFoldersRepository {
  constructor(@InjectRepository(PickerFolderEntity) private readonly folders: Repository<PickerFolderEntity>) {}

  /** Records (or refreshes) where these folders sit, seen now. */
  async record(rows: PickerFolder[], transaction?: Transaction): Promise<void> {
    if (!rows.length) return;
    // One statement may not touch a row twice: a folder listed twice keeps its first place.
    const once = firstOfEach(rows, (r) => `${r.dataSourceId}/${r.folderId}`);
    const manager = transaction ? managerOf(transaction) : this.folders.manager;
    await manager.upsert(
      PickerFolderEntity,
      once.map((r) => ({ ...r, seenAt: new Date() })),
      ['dataSourceId', 'folderId'],
    );
  }

  known(dataSourceId: string, folderIds: string[]): Promise<PickerFolderEntity[]> {
    return folderIds.length ? this.folders.findBy({ dataSourceId, folderId: In(folderIds) }) : Promise.resolve([]);
  }

  async forget(dataSourceId: string): Promise<void> {
    await this.folders.delete({ dataSourceId });
  }
}
