import { PickerFolderView, PickerPageView } from '@app/contracts/views';

export const PARTIAL_NOTICE =
  'The document system answered too slowly to look into every folder: a folder may offer subfolders it does not have.';

/** A picker page; a partial one (the request reached its bound) says so in `partial` and `notice`. */
export function pickerPage(items: PickerFolderView[], nextCursor: string | null, partial: boolean): PickerPageView {
  return partial ? { items, nextCursor, partial, notice: PARTIAL_NOTICE } : { items, nextCursor };
}
