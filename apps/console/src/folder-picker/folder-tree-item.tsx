import type { KeyboardEvent, MouseEvent, ReactNode } from 'react';
import type { PickerFolder, FolderSelectionState } from '../api/types';

const ARIA_CHECKED: Record<FolderSelectionState, 'true' | 'false' | 'mixed'> = {
  Selected: 'true',
  Partial: 'mixed',
  None: 'false',
};

export interface TreeItemProps {
  folder: PickerFolder;
  state: FolderSelectionState;
  level: number;
  expanded: boolean;
  focused: boolean;
  disabled: boolean;
  onToggleSelection: () => void;
  onToggleExpanded: () => void;
  onFocus: () => void;
  onKeyDown: (event: KeyboardEvent<HTMLLIElement>) => void;
  itemRef: (element: HTMLLIElement | null) => void;
  children?: ReactNode;
}

/** One folder: a tri-state checkbox (aria-checked mixed for Partial), its name and, if it has any, its subfolders. */
export function FolderTreeItem(props: TreeItemProps) {
  const { folder, state } = props;
  const stop = (work: () => void) => (event: MouseEvent) => {
    event.stopPropagation();
    props.onFocus();
    if (!props.disabled) work();
  };
  return (
    <li
      role="treeitem"
      aria-label={folder.name}
      aria-level={props.level}
      aria-checked={ARIA_CHECKED[state]}
      aria-expanded={folder.hasChildren ? props.expanded : undefined}
      aria-disabled={props.disabled || undefined}
      tabIndex={props.focused ? 0 : -1}
      ref={props.itemRef}
      onKeyDown={props.onKeyDown}
      onFocus={(event) => event.target === event.currentTarget && props.onFocus()}
      className="tree-item"
    >
      <div className="tree-row" onClick={stop(() => undefined)} title={folder.path}>
        <span
          className={`twisty ${folder.hasChildren ? '' : 'twisty-leaf'}`}
          aria-hidden="true"
          onClick={folder.hasChildren ? stop(props.onToggleExpanded) : undefined}
        >
          {folder.hasChildren ? (props.expanded ? '▾' : '▸') : ''}
        </span>
        <span
          className={`check check-${state.toLowerCase()}`}
          aria-hidden="true"
          data-check={folder.name}
          onClick={stop(props.onToggleSelection)}
        />
        {/* The name opens a folder, as in a file browser; only the box selects. A leaf has nothing to open. */}
        <span
          className="tree-name"
          onClick={stop(folder.hasChildren ? props.onToggleExpanded : props.onToggleSelection)}
        >
          {folder.name}
        </span>
        {state === 'Partial' ? <span className="tree-note">partly selected</span> : null}
      </div>
      {props.children}
    </li>
  );
}
