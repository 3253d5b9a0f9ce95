import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import type { DocumentSystemSession, Workgroup } from '../document-system/document-system.adapter';
import { PickerFolderEntity } from './picker-folder.entity';

/** Upper bound on folder listings spent looking for folders the picker has not shown yet. */
const MAX_LISTINGS = 2000;

/**
 * Knows where folders sit in the document system's tree. Folders shown by the picker are recorded;
 * a folder not seen yet is found breadth-first from the workgroups.
 */
@Injectable()
export class FolderLocator {
  constructor(@InjectRepository(PickerFolderEntity) private readonly folders: Repository<PickerFolderEntity>) {}

  recordWorkgroups(dataSourceId: string, workgroups: Workgroup[]): Promise<PickerFolderEntity[]> {
    return this.record(
      workgroups.map((w) => ({ dataSourceId, folderId: w.rootFolderId, parentId: null, name: w.name, path: `/${w.name}`, ancestorIds: [] })),
    );
  }

  recordChildren(parent: PickerFolderEntity, children: Array<{ id: string; name: string }>): Promise<PickerFolderEntity[]> {
    return this.record(
      children.map((c) => ({
        dataSourceId: parent.dataSourceId,
        folderId: c.id,
        parentId: parent.folderId,
        name: c.name,
        path: `${parent.path}/${c.name}`,
        ancestorIds: [...parent.ancestorIds, parent.folderId],
      })),
    );
  }

  known(dataSourceId: string, folderIds: string[]): Promise<PickerFolderEntity[]> {
    return folderIds.length ? this.folders.findBy({ dataSourceId, folderId: In(folderIds) }) : Promise.resolve([]);
  }

  async forget(dataSourceId: string): Promise<void> {
    await this.folders.delete({ dataSourceId });
  }

  /** Finds every wanted folder, from the record or by walking the tree; returns those found. */
  async locate(dataSourceId: string, session: () => Promise<DocumentSystemSession>, wanted: string[]): Promise<Map<string, PickerFolderEntity>> {
    const found = new Map((await this.known(dataSourceId, wanted)).map((f) => [f.folderId, f]));
    const missing = () => wanted.filter((id) => !found.has(id));
    if (missing().length === 0) return found;

    const docs = await session();
    let queue = await this.recordWorkgroups(dataSourceId, await allPages((c) => docs.listWorkgroups(c)));
    let listings = 0;
    while (queue.length && missing().length && listings < MAX_LISTINGS) {
      queue.forEach((f) => wanted.includes(f.folderId) && found.set(f.folderId, f));
      const next: PickerFolderEntity[] = [];
      for (const folder of queue) {
        if (!missing().length || listings >= MAX_LISTINGS) break;
        listings++;
        const children = (await allPages((c) => docs.listChildren(folder.folderId, c))).filter((c) => c.kind === 'folder');
        next.push(...(await this.recordChildren(folder, children)));
      }
      queue = next;
    }
    queue.forEach((f) => wanted.includes(f.folderId) && found.set(f.folderId, f));
    return found;
  }

  private async record(rows: Array<Omit<PickerFolderEntity, 'seenAt'>>): Promise<PickerFolderEntity[]> {
    if (rows.length) await this.folders.upsert(rows.map((r) => ({ ...r, seenAt: new Date() })), ['dataSourceId', 'folderId']);
    return rows.map((r) => Object.assign(new PickerFolderEntity(), r));
  }
}

async function allPages<T>(page: (cursor?: string) => Promise<{ items: T[]; nextCursor: string | null }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const result = await page(cursor);
    items.push(...result.items);
    cursor = result.nextCursor ?? undefined;
  } while (cursor);
  return items;
}
