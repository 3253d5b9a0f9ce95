import { KeyboardEvent, ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError } from '../api/api-error';
import type { DataSource, FolderSelectionState, PickerFolder } from '../api/types';
import { useConsole } from '../session/console-context';
import { Button, Spinner } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { describeSelection, nameFromMarks } from './selection-summary';
import { FolderTreeItem } from './folder-tree-item';
import { itemsOf, Level, ROOT, usePickerLevels } from './picker-levels';
import { folderState, SelectionMark, selectionOf, toggle } from '@app/contracts/views';

interface VisibleNode {
  folder: PickerFolder;
  ancestorIds: string[];
  level: number;
}

export interface FolderPickerProps {
  dataSource: DataSource;
  onSaved: (dataSource: DataSource) => void;
  /** Ways out of an error at the root (re-authenticate, another credential). */
  recovery?: (error: ApiError, retry: () => void) => ReactNode;
}

/**
 * The folder picker: workgroups at the root, subfolders loaded when opened (page by page), tri-state
 * checkboxes. A click edits include/exclude (the shared selection rules), saves at once, then shows the
 * server's tri-state for everything loaded. Keyboard: arrows, Home/End, Enter or → opens, Space selects.
 */
export function FolderPicker({ dataSource, onSaved, recovery }: FolderPickerProps) {
  const { connector } = useConsole();
  const { levels, load, refresh, reset } = usePickerLevels(connector, dataSource.id);
  const [marks, setMarks] = useState<SelectionMark[]>(dataSource.selectionMarks);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [focusedId, setFocusedId] = useState<string | null>(null);
  const [pending, setPending] = useState<SelectionMark[] | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const elements = useRef(new Map<string, HTMLLIElement>());

  useEffect(() => {
    reset();
    setMarks(dataSource.selectionMarks);
    setExpanded(new Set());
    void load(ROOT);
    // A new credential or connection starts the picker afresh (the server discarded the selection).
  }, [dataSource.id, dataSource.credentialId, dataSource.connectionId, load, reset]);

  const visible = useMemo(() => flatten(levels, expanded), [levels, expanded]);
  const root = levels.get(ROOT);
  const focused = focusedId ?? visible[0]?.folder.id ?? null;

  const stateFor = (node: VisibleNode): FolderSelectionState =>
    pending ? folderState(node.folder.id, node.ancestorIds, pending) : node.folder.selection;

  const select = async (node: VisibleNode) => {
    if (pending) return;
    const next = toggle({ id: node.folder.id, ancestorIds: node.ancestorIds }, node.folder.selection, marks);
    setPending(next);
    setSaveError(null);
    try {
      const saved = await connector.dataSources.select(dataSource.id, selectionOf(next));
      setMarks(saved.selectionMarks);
      await refresh();
      onSaved(saved);
    } catch (error) {
      setSaveError(error);
    } finally {
      setPending(null);
    }
  };

  const setOpen = useCallback(
    (node: VisibleNode, open: boolean) => {
      setExpanded((all) => {
        const next = new Set(all);
        if (open) next.add(node.folder.id);
        else next.delete(node.folder.id);
        return next;
      });
      if (open && !levels.get(node.folder.id)?.pages.length) void load(node.folder.id);
    },
    [levels, load],
  );

  const moveFocus = (id: string | undefined) => {
    if (!id) return;
    setFocusedId(id);
    elements.current.get(id)?.focus();
  };

  const onKeyDown = (node: VisibleNode, index: number) => (event: KeyboardEvent<HTMLLIElement>) => {
    if (event.target !== event.currentTarget) return;
    const isOpen = expanded.has(node.folder.id);
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveFocus(visible[index + 1]?.folder.id),
      ArrowUp: () => moveFocus(visible[index - 1]?.folder.id),
      Home: () => moveFocus(visible[0]?.folder.id),
      End: () => moveFocus(visible[visible.length - 1]?.folder.id),
      ArrowRight: () =>
        node.folder.hasChildren && !isOpen
          ? setOpen(node, true)
          : isOpen
            ? moveFocus(visible[index + 1]?.folder.id)
            : undefined,
      ArrowLeft: () => (isOpen ? setOpen(node, false) : moveFocus(node.ancestorIds[node.ancestorIds.length - 1])),
      Enter: () => node.folder.hasChildren && setOpen(node, !isOpen),
      ' ': () => void select(node),
    };
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };

  const renderLevel = (key: string, depth: number): ReactNode => {
    const level = levels.get(key);
    const nodes = visible.filter((n) => (n.ancestorIds[n.ancestorIds.length - 1] ?? ROOT) === key);
    return (
      <>
        {nodes.map((node) => {
          const index = visible.indexOf(node);
          const open = expanded.has(node.folder.id);
          return (
            <FolderTreeItem
              key={node.folder.id}
              folder={node.folder}
              state={stateFor(node)}
              level={depth}
              expanded={open}
              focused={focused === node.folder.id}
              disabled={pending !== null}
              onToggleSelection={() => void select(node)}
              onToggleExpanded={() => setOpen(node, !open)}
              onFocus={() => setFocusedId(node.folder.id)}
              onKeyDown={onKeyDown(node, index)}
              itemRef={(el) =>
                el ? elements.current.set(node.folder.id, el) : elements.current.delete(node.folder.id)
              }
            >
              {open ? (
                <ul role="group" className="tree-group">
                  {renderLevel(node.folder.id, depth + 1)}
                </ul>
              ) : null}
            </FolderTreeItem>
          );
        })}
        <LevelFooter level={level} onMore={() => void load(key, level?.nextCursor)} onRetry={() => void load(key)} />
      </>
    );
  };

  if (root?.error && !root.pages.length) {
    const error = root.error;
    return (
      <ErrorNotice error={error}>
        {error instanceof ApiError && recovery ? recovery(error, () => void load(ROOT)) : null}
        <Button onClick={() => void load(ROOT)}>Try again</Button>
      </ErrorNotice>
    );
  }
  if (!root || (root.loading && !root.pages.length)) return <Spinner label="Loading workgroups…" />;
  if (!itemsOf(root).length) {
    return (
      <Notice kind="warning" title="No folders to show">
        <p>
          <span className="what-to-do">What to do:</span> Confirm account access in the document system.
        </p>
        {root.notice ? <p className="muted">{root.notice}</p> : null}
        <Button onClick={() => void load(ROOT)}>Look again</Button>
      </Notice>
    );
  }

  const summary = selectionOf(marks);
  const namesLoaded = new Map(
    [...levels.values()].flatMap((level) => itemsOf(level).map((f): [string, string] => [f.id, f.name])),
  );
  return (
    <div className="picker">
      <ul role="tree" aria-label="Folders" aria-multiselectable="true" aria-busy={pending !== null} className="tree">
        {renderLevel(ROOT, 1)}
      </ul>
      <p className="picker-status" role="status">
        {pending
          ? 'Saving the selection…'
          : `${describeSelection(summary, (id) => namesLoaded.get(id) ?? nameFromMarks(marks)(id))} Saved.`}
      </p>
      <ErrorNotice error={saveError} />
    </div>
  );
}

function LevelFooter({
  level,
  onMore,
  onRetry,
}: {
  level: Level | undefined;
  onMore: () => void;
  onRetry: () => void;
}) {
  if (!level) return null;
  if (level.error) {
    return (
      <li className="tree-footer" role="none">
        <ErrorNotice error={level.error}>
          <Button onClick={onRetry}>Try again</Button>
        </ErrorNotice>
      </li>
    );
  }
  if (level.loading)
    return (
      <li className="tree-footer muted" role="none">
        Loading…
      </li>
    );
  if (level.nextCursor) {
    return (
      <li className="tree-footer" role="none">
        <Button kind="link" onClick={onMore}>
          Load more
        </Button>
      </li>
    );
  }
  return null;
}

/** The rows as shown: each loaded level's folders, with the open ones' subfolders below them. */
function flatten(levels: Map<string, Level>, expanded: Set<string>): VisibleNode[] {
  const out: VisibleNode[] = [];
  const walk = (key: string, ancestorIds: string[], depth: number) => {
    for (const folder of itemsOf(levels.get(key))) {
      out.push({ folder, ancestorIds, level: depth });
      if (expanded.has(folder.id)) walk(folder.id, [...ancestorIds, folder.id], depth + 1);
    }
  };
  walk(ROOT, [], 1);
  return out;
}
