import { useCallback, useRef, useState } from 'react';
import type { ConnectorApi } from '../api/connector-api';
import type { PickerFolder, PickerPage } from '../api/types';

/** One loaded level of the tree: the workgroups (key '') or one folder's subfolders, page by page. */
export interface Level {
  pages: Array<{ cursor: string | null; items: PickerFolder[] }>;
  nextCursor: string | null;
  loading: boolean;
  error: unknown;
  notice?: string;
}

export const ROOT = '';

/** A level's folders, page after page; a folder that moved between pages while paging shows once. */
export function itemsOf(level: Level | undefined): PickerFolder[] {
  const seen = new Set<string>();
  return (level?.pages.flatMap((p) => p.items) ?? []).filter((f) => !seen.has(f.id) && seen.add(f.id));
}

/** Lazy levels of the folder picker: load a level, load its next page, or refresh every loaded page. */
export function usePickerLevels(connector: ConnectorApi, dataSourceId: string) {
  const [levels, setLevels] = useState<Map<string, Level>>(new Map());
  const current = useRef(levels);
  current.current = levels;

  const patch = useCallback((key: string, change: (level: Level) => Level) => {
    setLevels((all) =>
      new Map(all).set(key, change(all.get(key) ?? { pages: [], nextCursor: null, loading: false, error: null })),
    );
  }, []);

  const fetchPage = useCallback(
    (key: string, cursor: string | null): Promise<PickerPage> =>
      connector.dataSources.folders(dataSourceId, key || undefined, cursor),
    [connector, dataSourceId],
  );

  const load = useCallback(
    async (key: string, cursor: string | null = null) => {
      patch(key, (l) => ({ ...l, loading: true, error: null }));
      try {
        const page = await fetchPage(key, cursor);
        patch(key, (l) => ({
          pages: cursor ? [...l.pages, { cursor, items: page.items }] : [{ cursor: null, items: page.items }],
          nextCursor: page.nextCursor,
          loading: false,
          error: null,
          notice: page.notice,
        }));
      } catch (error) {
        patch(key, (l) => ({ ...l, loading: false, error }));
      }
    },
    [fetchPage, patch],
  );

  /** After a save: every page loaded so far again, so the tri-state shown is the server's. */
  const refresh = useCallback(async () => {
    const snapshot = [...current.current.entries()].filter(([, level]) => level.pages.length > 0);
    const fresh = await Promise.all(
      snapshot.map(async ([key, level]) => {
        const pages = await Promise.all(
          level.pages.map(async (p) => ({ cursor: p.cursor, page: await fetchPage(key, p.cursor) })),
        );
        return [key, pages] as const;
      }),
    );
    setLevels((all) => {
      const next = new Map(all);
      for (const [key, pages] of fresh) {
        const level = next.get(key);
        if (level)
          next.set(key, {
            ...level,
            pages: pages.map((p) => ({ cursor: p.cursor, items: p.page.items })),
            nextCursor: pages[pages.length - 1].page.nextCursor,
          });
      }
      return next;
    });
  }, [fetchPage]);

  const reset = useCallback(() => setLevels(new Map()), []);

  return { levels, load, refresh, reset };
}
