import { Injectable } from '@nestjs/common';
import { Transaction } from '@app/database';
import type { DocumentSystemSession, Workgroup } from '../../document-system/document-system.adapter';
import { firstOfEach } from './first-of-each';
import { PickerFolderEntity } from './picker-folder.entity';
import { PickerFolder, PickerFoldersRepository } from './picker-folders.repository';

/**
 * Document-system calls (pages) one request may spend looking for folders the picker has not shown, and
 * the time it may take: a folder id nobody has seen must not cost a walk of the whole tree.
 */
const FOLDER_WALK_CALLS = 50;
const FOLDER_WALK_MS = 10_000;

/**
 * Knows where folders sit in the document system's tree. Folders shown by the picker are recorded;
 * a folder not seen yet is found breadth-first from the workgroups.
 */
@Injectable()
export class FolderLocator {
  constructor(private readonly folders: PickerFoldersRepository) {}

  recordWorkgroups(dataSourceId: string, workgroups: Workgroup[]): Promise<PickerFolderEntity[]> {
    return this.record(workgroupRows(dataSourceId, workgroups));
  }

  recordChildren(
    parent: PickerFolderEntity,
    children: Array<{ id: string; name: string }>,
  ): Promise<PickerFolderEntity[]> {
    return this.record(childRows(parent, children));
  }

  /** Records folders located afresh, once what they were located for is saved (or in the transaction saving it). */
  async keep(folders: PickerFolderEntity[], transaction?: Transaction): Promise<void> {
    await this.folders.record(folders, transaction);
  }

  known(dataSourceId: string, folderIds: string[]): Promise<PickerFolderEntity[]> {
    return this.folders.known(dataSourceId, folderIds);
  }

  forget(dataSourceId: string): Promise<void> {
    return this.folders.forget(dataSourceId);
  }

  /**
   * Finds every wanted folder, from the record or by walking the tree breadth-first from the workgroups
   * within a bound of calls and time; returns those found (past the bound, the rest count as unknown).
   */
  async locate(
    dataSourceId: string,
    session: () => Promise<DocumentSystemSession>,
    wanted: string[],
    { afresh = false } = {},
  ): Promise<Map<string, PickerFolderEntity>> {
    const found = new Map(afresh ? [] : (await this.known(dataSourceId, wanted)).map((f) => [f.folderId, f]));
    if (found.size === new Set(wanted).size) return found;
    // Afresh (as another login will see them): the record, which a sync's places come from, is not touched.
    const record = afresh
      ? async (rows: PickerFolder[]) => this.entities(rows)
      : (rows: PickerFolder[]) => this.record(rows);

    const docs = await session();
    const walk = new WalkBudget();
    const take = (folders: PickerFolderEntity[]) =>
      folders.filter((f) => wanted.includes(f.folderId)).forEach((f) => found.set(f.folderId, f));
    const complete = () => found.size === new Set(wanted).size;
    const workgroups = await walk.allPages((c) => docs.listWorkgroups(c));
    if (!workgroups) return found;
    let level = await record(workgroupRows(dataSourceId, workgroups));
    take(level);
    while (level.length && !complete()) {
      const next: PickerFolderEntity[] = [];
      for (const folder of level) {
        const children = await walk.allPages((c) => docs.listChildren(folder.folderId, c));
        if (!children) return found;
        const recorded = await record(
          childRows(
            folder,
            children.filter((c) => c.kind === 'folder'),
          ),
        );
        take(recorded);
        if (complete()) return found;
        next.push(...recorded);
      }
      level = next;
    }
    return found;
  }

  /**
   * The folders' places as the document system has them now (a rename or move since the picker showed
   * them): their recorded ancestors' children are listed again from the workgroups down, within the walk's
   * bound, and recorded. A folder not found where it was keeps its recorded place.
   */
  async refresh(
    dataSourceId: string,
    session: () => Promise<DocumentSystemSession>,
    folderIds: string[],
  ): Promise<PickerFolderEntity[]> {
    const recorded = await this.known(dataSourceId, folderIds);
    const chains = recorded.map((f) => [...f.ancestorIds, f.folderId]);
    const docs = await session();
    const walk = new WalkBudget();
    const workgroups = await walk.allPages((c) => docs.listWorkgroups(c));
    const fresh = new Map<string, PickerFolderEntity>();
    const keep = (folders: PickerFolderEntity[]) => folders.forEach((f) => fresh.set(f.folderId, f));
    if (workgroups) keep(await this.recordWorkgroups(dataSourceId, workgroups));
    for (let depth = 0; workgroups && chains.some((chain) => chain.length > depth + 1); depth++) {
      const parents = new Set(chains.filter((chain) => chain.length > depth + 1).map((chain) => chain[depth]));
      for (const parentId of parents) {
        const parent = fresh.get(parentId);
        if (!parent) continue; // moved or gone: what was recorded stands
        const children = await walk.allPages((c) => docs.listChildren(parentId, c));
        if (!children) return recorded.map((f) => fresh.get(f.folderId) ?? f);
        keep(
          await this.recordChildren(
            parent,
            children.filter((c) => c.kind === 'folder'),
          ),
        );
      }
    }
    return recorded.map((f) => fresh.get(f.folderId) ?? f);
  }

  private async record(rows: PickerFolder[]): Promise<PickerFolderEntity[]> {
    await this.folders.record(rows);
    return this.entities(rows);
  }

  private entities(rows: PickerFolder[]): PickerFolderEntity[] {
    return rows.map((r) => Object.assign(new PickerFolderEntity(), r));
  }
}

function workgroupRows(dataSourceId: string, workgroups: Workgroup[]): PickerFolder[] {
  return firstOfEach(workgroups, (w) => w.rootFolderId).map((w) => ({
    dataSourceId,
    folderId: w.rootFolderId,
    parentId: null,
    name: w.name,
    path: `/${w.name}`,
    ancestorIds: [],
  }));
}

/**
 * A parent's subfolders, each once. One listed below itself or its own subfolder (a loop) is left out: it keeps
 * the place it was first seen at.
 */
function childRows(parent: PickerFolderEntity, children: Array<{ id: string; name: string }>): PickerFolder[] {
  const above = new Set([...parent.ancestorIds, parent.folderId]);
  return firstOfEach(children, (c) => c.id)
    .filter((c) => !above.has(c.id))
    .map((c) => ({
      dataSourceId: parent.dataSourceId,
      folderId: c.id,
      parentId: parent.folderId,
      name: c.name,
      path: `${parent.path}/${c.name}`,
      ancestorIds: [...parent.ancestorIds, parent.folderId],
    }));
}

/** Counts the calls and time spent walking; `allPages` answers null once either of the walk's bounds is reached. */
class WalkBudget {
  private calls = 0;
  private readonly deadline = Date.now() + FOLDER_WALK_MS;

  async allPages<T>(
    page: (cursor?: string) => Promise<{ items: T[]; nextCursor: string | null }>,
  ): Promise<T[] | null> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      if (this.calls >= FOLDER_WALK_CALLS || Date.now() >= this.deadline) return null;
      this.calls++;
      // The request's own bound (the picker's) coming first is not the walk's: CallBudgetSpent goes up, and
      // the picker says the document system did not answer in time rather than that the folder is unknown.
      const result = await page(cursor);
      items.push(...result.items);
      cursor = result.nextCursor ?? undefined;
    } while (cursor);
    return items;
  }
}
