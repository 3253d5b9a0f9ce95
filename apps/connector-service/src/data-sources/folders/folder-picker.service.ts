import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import type { DocumentSystemSession } from '../../document-system/document-system.adapter';
import { DocumentSystemException } from '../../document-system/document-system.exception';
import { DataSourceAccess } from '../data-source-access';
import { folderState, PickerFolderView, PickerPageView, SelectionMark } from '@app/contracts/views';
import { DocumentSystemSessions } from '../document-system-sessions';
import { FolderLocator } from './folder-locator';
import { PickerFolderEntity } from './picker-folder.entity';

export const NO_WORKGROUPS_NOTICE =
  'No workgroups are visible to this account. Confirm the account has workgroup access in the document system.';

const PROBE_CONCURRENCY = 8;

/** The folder picker: workgroups at the root, then each folder's subfolders, page by page. */
@Injectable()
export class FolderPickerService {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly sessions: DocumentSystemSessions,
    private readonly locator: FolderLocator,
  ) {}

  async list(principal: Principal, dataSourceId: string, parentId?: string, cursor?: string): Promise<PickerPageView> {
    const source = await this.access.readable(principal, dataSourceId);
    const docs = await this.sessions.forDataSource(source);
    if (!parentId) return this.workgroups(docs, source.id, source.selection, cursor);

    const parent = (await this.locator.locate(source.id, async () => docs, [parentId])).get(parentId);
    if (!parent) throw DocumentSystemException.folderNotFound(parentId);
    const page = await docs.listChildren(parentId, cursor);
    const folders = await this.locator.recordChildren(
      parent,
      page.items.filter((c) => c.kind === 'folder'),
    );
    return { items: await this.items(docs, folders, source.selection), nextCursor: page.nextCursor };
  }

  private async workgroups(
    docs: DocumentSystemSession,
    dataSourceId: string,
    marks: SelectionMark[],
    cursor?: string,
  ): Promise<PickerPageView> {
    const page = await docs.listWorkgroups(cursor);
    if (!cursor && page.items.length === 0) return { items: [], nextCursor: null, notice: NO_WORKGROUPS_NOTICE };
    const roots = await this.locator.recordWorkgroups(dataSourceId, page.items);
    return { items: await this.items(docs, roots, marks), nextCursor: page.nextCursor };
  }

  private async items(
    docs: DocumentSystemSession,
    folders: PickerFolderEntity[],
    marks: SelectionMark[],
  ): Promise<PickerFolderView[]> {
    const hasChildren = await mapLimited(folders, PROBE_CONCURRENCY, (f) => hasSubfolders(docs, f.folderId));
    return folders.map((f, i) => ({
      id: f.folderId,
      name: f.name,
      path: f.path,
      hasChildren: hasChildren[i],
      selection: folderState(f.folderId, f.ancestorIds, marks),
    }));
  }
}

/** Pages looked at to tell whether a folder has subfolders; past them the picker assumes it has. */
const PROBE_PAGES = 5;

/** Whether a folder has subfolders (the picker shows folders only). */
async function hasSubfolders(docs: DocumentSystemSession, folderId: string): Promise<boolean> {
  let cursor: string | undefined;
  for (let page = 0; page < PROBE_PAGES; page++) {
    const result = await docs.listChildren(folderId, cursor);
    if (result.items.some((c) => c.kind === 'folder')) return true;
    if (!result.nextCursor) return false;
    cursor = result.nextCursor;
  }
  return true;
}

async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  });
  await Promise.all(lanes);
  return results;
}
