export { excludedIds, folderState, isCovered, syncRoots } from '@app/contracts';
export type { FolderSelectionState, MarkMode, SelectionMark } from '@app/contracts';
