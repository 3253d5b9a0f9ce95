const folders = (n: number) => (n === 1 ? 'folder' : 'folders');

/** "Architecture, Specifications and 1 more folder": the names known, then how many are not. */
function listed(ids: string[], nameOf: (id: string) => string | undefined): string {
  const names = ids.map(nameOf).filter((name): name is string => Boolean(name));
  const unnamed = ids.length - names.length;
  if (!names.length) return `${unnamed} ${folders(unnamed)}`;
  const more = unnamed ? ` and ${unnamed} more ${folders(unnamed)}` : '';
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

/** A folder's name as its mark kept it when it was selected. */
export function nameFromMarks(marks: ReadonlyArray<{ folderId: string; name?: string | null }>) {
  return (id: string): string | undefined => marks.find((m) => m.folderId === id)?.name ?? undefined;
}
