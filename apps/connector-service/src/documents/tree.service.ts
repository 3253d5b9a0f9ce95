import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import { DomainException } from '@app/errors';
import { DataSourceAccess } from '../data-sources/data-source-access';
import { FileLedgerRepository } from '../file-ledger/file-ledger.repository';
import { decodeTreeCursor, encodeTreeCursor, TreeCursor } from './tree-cursor';
import { TREE_PAGE_DEFAULT, TreeQueryDto } from './tree.dto';
import type { TreePageView } from '@app/contracts/views';
import { TreeFolderRow, TreeKey, TreeRepository } from './tree.repository';

type TreePageRows = Omit<TreePageView, 'folder' | 'folders'> & {
  folder: TreeFolderRow | null;
  folders: TreeFolderRow[];
};

/**
 * The ingested hierarchy as in the document system: workgroups at the root, then folders and files.
 * A page holds at most `limit` entries, subfolders first, then files, each in name order.
 */
@Injectable()
export class TreeService {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly tree: TreeRepository,
    private readonly ledger: FileLedgerRepository,
  ) {}

  async view(principal: Principal, dataSourceId: string, query: TreeQueryDto): Promise<TreePageView> {
    await this.access.readable(principal, dataSourceId);
    const page = await this.page(dataSourceId, query);
    const folders = page.folder ? [page.folder, ...page.folders] : page.folders;
    const outcomes = await this.ledger.outcomesBelow(
      dataSourceId,
      folders.map((f) => f.path),
    );
    const withOutcomes = (folder: TreeFolderRow) => ({ ...folder, outcomes: outcomes.get(folder.path) ?? {} });
    return { ...page, folder: page.folder && withOutcomes(page.folder), folders: page.folders.map(withOutcomes) };
  }

  private async page(dataSourceId: string, query: TreeQueryDto): Promise<TreePageRows> {
    const folderId = query.folderId || query.parentId || null;
    const limit = query.limit ?? TREE_PAGE_DEFAULT;
    const cursor: TreeCursor = query.cursor ? decodeTreeCursor(query.cursor) : { stage: 'folders', after: null };
    const folder = folderId ? await this.tree.folder(dataSourceId, folderId) : null;
    if (folderId && !folder) throw new DomainException(404, 'FOLDER_NOT_FOUND', 'Folder not found in this data source');

    const folders =
      cursor.stage === 'folders' ? await this.tree.subfolders(dataSourceId, folderId, cursor.after, limit + 1) : [];
    if (folders.length > limit) {
      const page = folders.slice(0, limit);
      return {
        folder,
        folders: page,
        files: [],
        nextCursor: encodeTreeCursor({ stage: 'folders', after: keyOf(page[page.length - 1]) }),
      };
    }
    const room = limit - folders.length;
    const filesAfter = cursor.stage === 'files' ? cursor.after : null;
    const files = folderId ? await this.tree.files(dataSourceId, folderId, filesAfter, room + 1) : [];
    if (files.length <= room) return { folder, folders, files, nextCursor: null };
    const page = files.slice(0, room);
    const last = page.length ? { name: page[page.length - 1].name, id: page[page.length - 1].documentId } : filesAfter;
    return { folder, folders, files: page, nextCursor: encodeTreeCursor({ stage: 'files', after: last }) };
  }
}

const keyOf = (folder: TreeFolderRow): TreeKey => ({ name: folder.name, id: folder.id });
