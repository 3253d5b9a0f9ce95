import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import { ConnectorEnv } from '../../connector-env';
import { CallBudget, CallBudgetSpent } from '../../document-system/call-budget';
import type { ChildEntry, DocumentSystemSession, Page } from '../../document-system/document-system.adapter';
import {
  DocumentSystemErrorCode,
  DocumentSystemException,
  isReauthRequired,
} from '../../document-system/document-system.exception';
import { DataSourceAccess } from '../data-source-access';
import { DataSourceEntity } from '../data-source.entity';
import { folderState, PickerFolderView, PickerPageView, SelectionMark } from '@app/contracts/views';
import { DocumentSystemSessions } from '../document-system-sessions';
import { pickerPage } from './dto/picker-page.response';
import { FolderLocator } from './folder-locator';
import { PickerFolderEntity } from './picker-folder.entity';

export const NO_WORKGROUPS_NOTICE =
  'No workgroups are visible to this account. Confirm the account has workgroup access in the document system.';

const PROBE_CONCURRENCY = 8;

/**
 * The folder picker: workgroups at the root, then each folder's subfolders, page by page. One request makes
 * at most PICKER_MAX_CALLS document-system calls within PICKER_MAX_SECONDS (CONTRACT.md, fair share): a
 * folder not looked into by then is shown as one that may have subfolders, and the page says it is partial.
 */
@Injectable()
export class FolderPickerService {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly sessions: DocumentSystemSessions,
    private readonly locator: FolderLocator,
    private readonly env: ConnectorEnv,
  ) {}

  async list(principal: Principal, dataSourceId: string, parentId?: string, cursor?: string): Promise<PickerPageView> {
    const source = await this.access.readable(principal, dataSourceId);
    const budget = new CallBudget(this.env.PICKER_MAX_CALLS, this.env.PICKER_MAX_SECONDS * 1000);
    try {
      return await this.page(source, budget, parentId, cursor);
    } catch (error) {
      // Nothing to show yet: the page itself did not come within the bound.
      if (error instanceof CallBudgetSpent)
        throw DocumentSystemException.unavailable(
          `not within the folder picker's bound of ${budget.maxCalls} calls and ${budget.maxMs / 1000} s`,
        );
      throw error;
    }
  }

  private async page(
    source: DataSourceEntity,
    budget: CallBudget,
    parentId?: string,
    cursor?: string,
  ): Promise<PickerPageView> {
    const docs = await this.sessions.forDataSource(source, { budget });
    if (!parentId) return this.workgroups(docs, source.id, source.selection, cursor);

    const parent = (await this.locator.locate(source.id, async () => docs, [parentId])).get(parentId);
    if (!parent) throw DocumentSystemException.folderNotFound(parentId);
    const page = await docs.listChildren(parentId, cursor);
    const folders = await this.locator.recordChildren(
      parent,
      page.items.filter((c) => c.kind === 'folder'),
    );
    const { items, partial } = await this.items(docs, folders, source.selection);
    return pickerPage(items, page.nextCursor, partial);
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
    const { items, partial } = await this.items(docs, roots, marks);
    return pickerPage(items, page.nextCursor, partial);
  }

  private async items(
    docs: DocumentSystemSession,
    folders: PickerFolderEntity[],
    marks: SelectionMark[],
  ): Promise<{ items: PickerFolderView[]; partial: boolean }> {
    const hasChildren = await mapLimited(folders, PROBE_CONCURRENCY, (f) => hasSubfolders(docs, f.folderId));
    const items = folders.map((f, i) => ({
      id: f.folderId,
      name: f.name,
      path: f.path,
      hasChildren: hasChildren[i] ?? true,
      selection: folderState(f.folderId, f.ancestorIds, marks),
    }));
    return { items, partial: hasChildren.includes(null) };
  }
}

/** Pages looked at to tell whether a folder has subfolders; past them the picker assumes it has. */
const PROBE_PAGES = 5;

/**
 * Whether a folder has subfolders (the picker shows folders only); null: unknown, the request's bound came first.
 * A folder whose look fails (gone, an id no URL can name, too long a page) may have some: opening it shows why.
 */
async function hasSubfolders(docs: DocumentSystemSession, folderId: string): Promise<boolean | null> {
  let cursor: string | undefined;
  for (let page = 0; page < PROBE_PAGES; page++) {
    let result: Page<ChildEntry>;
    try {
      result = await docs.listChildren(folderId, cursor);
    } catch (error) {
      if (error instanceof CallBudgetSpent) return null;
      if (error instanceof DocumentSystemException && !failsTheLogin(error)) return true;
      throw error;
    }
    if (result.items.some((c) => c.kind === 'folder')) return true;
    if (!result.nextCursor) return false;
    cursor = result.nextCursor;
  }
  return true;
}

/** The account's authorization or credential refused: the page's answer too, not one folder's trouble. */
function failsTheLogin(error: DocumentSystemException): boolean {
  return isReauthRequired(error) || error.code === DocumentSystemErrorCode.CredentialsInvalid;
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
