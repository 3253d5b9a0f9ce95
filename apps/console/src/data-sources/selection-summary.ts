import { useEffect, useState } from 'react';
import type { ConnectorApi } from '../api/connector-api';
import type { SelectionMarkView } from '@app/contracts/views';

const folders = (n: number) => `${n} folder${n === 1 ? '' : 's'}`;

/** "Architecture, Specifications and 1 more folder": the names known, then how many are not. */
function listed(ids: string[], nameOf: (id: string) => string | undefined): string {
  const names = ids.map(nameOf).filter((name): name is string => Boolean(name));
  const unnamed = ids.length - names.length;
  if (!names.length) return folders(unnamed);
  const more = unnamed ? ` and ${unnamed} more folder${unnamed === 1 ? '' : 's'}` : '';
  return names.join(', ') + more;
}

/** "Included: Architecture · excluded: RFIs", by the folders' names where they are known. */
export function describeSelection(
  selection: { include: string[]; exclude: string[] },
  nameOf: (id: string) => string | undefined,
): string {
  if (!selection.include.length) return 'No folders selected.';
  const excluded = selection.exclude.length ? ` · excluded: ${listed(selection.exclude, nameOf)}` : '';
  return `Included: ${listed(selection.include, nameOf)}${excluded}.`;
}

/**
 * The names of a data source's selected folders: from its ingested tree (folders a sync has seen), else from
 * the folder picker's listing of the folder's parent (an excluded folder, which no sync lists). A folder
 * found in neither (gone, or past the first page of its parent) stays unnamed.
 */
export function useFolderNames(
  connector: ConnectorApi,
  dataSourceId: string,
  marks: SelectionMarkView[],
): Map<string, string> {
  const [names, setNames] = useState<Map<string, string>>(new Map());
  // A new array with the same marks is no reason to look again: the effect depends on their text.
  const key = JSON.stringify(marks.map((m) => [m.folderId, m.ancestorIds.at(-1) ?? '']));
  useEffect(() => {
    let current = true;
    void lookUpNames(connector, dataSourceId, JSON.parse(key) as Array<[string, string]>).then(
      (found) => current && setNames(found),
    );
    return () => {
      current = false;
    };
  }, [connector, dataSourceId, key]);
  return names;
}

async function lookUpNames(
  connector: ConnectorApi,
  dataSourceId: string,
  marks: Array<[folderId: string, parentId: string]>,
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const [id] of marks) {
    const page = await connector.dataSources.tree(dataSourceId, id, 1).catch(() => null);
    if (page?.folder) names.set(id, page.folder.name);
  }
  const parents = new Set(marks.filter(([id]) => !names.has(id)).map(([, parent]) => parent));
  for (const parent of parents) {
    const listing = await connector.dataSources.folders(dataSourceId, parent || undefined).catch(() => null);
    for (const folder of listing?.items ?? []) if (!names.has(folder.id)) names.set(folder.id, folder.name);
  }
  return names;
}
