import { FolderRef, folderState, isCovered, SelectionMark, selectionOf, syncRoots, toggle } from './selection-rules';

// Architecture (wg root A)
// └── Drawings (D)
//     ├── Level 1 (L1)
//     │   └── Details (L1d)
//     │       └── Façade (L1df)
//     └── Level 2 (L2)
// Structural (wg root S)
const anc: Record<string, string[]> = {
  A: [],
  D: ['A'],
  L1: ['A', 'D'],
  L1d: ['A', 'D', 'L1'],
  L1df: ['A', 'D', 'L1', 'L1d'],
  L2: ['A', 'D'],
  S: [],
};
const include = (id: string): SelectionMark => ({ folderId: id, ancestorIds: anc[id], mode: 'include' });
const exclude = (id: string): SelectionMark => ({ folderId: id, ancestorIds: anc[id], mode: 'exclude' });
const state = (id: string, marks: SelectionMark[]) => folderState(id, anc[id], marks);

describe('selection rules', () => {
  it('a whole folder: it and everything below are Selected, its parent is untouched', () => {
    const marks = [include('D')];
    expect(['D', 'L1', 'L1d', 'L1df', 'L2'].map((id) => state(id, marks))).toEqual(Array(5).fill('Selected'));
    expect(state('A', marks)).toBe('Partial');
    expect(state('S', marks)).toBe('None');
  });

  it('one subfolder: its ancestors are Partial, its siblings None', () => {
    const marks = [include('L2')];
    expect(state('L2', marks)).toBe('Selected');
    expect(state('D', marks)).toBe('Partial');
    expect(state('A', marks)).toBe('Partial');
    expect(state('L1', marks)).toBe('None');
  });

  it('a mix of a whole workgroup and a subfolder elsewhere', () => {
    const marks = [include('S'), include('L1')];
    expect(state('S', marks)).toBe('Selected');
    expect(state('L1df', marks)).toBe('Selected');
    expect(state('A', marks)).toBe('Partial');
    expect(state('L2', marks)).toBe('None');
  });

  it('include with a deep exclude: every folder on the way down is Partial, the excluded one None', () => {
    const marks = [include('A'), exclude('L1df')];
    expect(state('A', marks)).toBe('Partial');
    expect(state('D', marks)).toBe('Partial');
    expect(state('L1d', marks)).toBe('Partial');
    expect(state('L1df', marks)).toBe('None');
    expect(state('L2', marks)).toBe('Selected');
    expect(isCovered([...anc.L1df, 'L1df'], marks)).toBe(false);
  });

  it('include inside an exclude: the inner folder is taken again', () => {
    const marks = [include('A'), exclude('L1'), include('L1df')];
    expect(state('L1', marks)).toBe('Partial');
    expect(state('L1d', marks)).toBe('Partial');
    expect(state('L1df', marks)).toBe('Selected');
    expect(state('A', marks)).toBe('Partial');
    expect(isCovered([...anc.L1d, 'L1d'], marks)).toBe(false);
  });

  it('a folder whose only selected part is deep below it is Partial', () => {
    const marks = [include('L1df')];
    expect(state('A', marks)).toBe('Partial');
    expect(state('L1', marks)).toBe('Partial');
    expect(state('L2', marks)).toBe('None');
  });

  it('sync walks from each outermost include, including those inside excludes', () => {
    const marks = [include('A'), include('L2'), exclude('L1'), include('L1df'), include('S')];
    expect(
      syncRoots(marks)
        .map((m) => m.folderId)
        .sort(),
    ).toEqual(['A', 'L1df', 'S']);
  });

  it('nothing selected: everything is None and there is nothing to walk', () => {
    expect(state('A', [])).toBe('None');
    expect(syncRoots([])).toEqual([]);
  });
});

// Architecture ─ Drawings ─ Details ─ Façade
//              └ RFIs
const arch: FolderRef = { id: 'arch', ancestorIds: [] };
const drawings = { id: 'drawings', ancestorIds: ['arch'] };
const details = { id: 'details', ancestorIds: ['arch', 'drawings'] };
const facade = { id: 'facade', ancestorIds: ['arch', 'drawings', 'details'] };
const rfis = { id: 'rfis', ancestorIds: ['arch'] };
const structural: FolderRef = { id: 'structural', ancestorIds: [] };

const stateOf = (folder: FolderRef, marks: SelectionMark[]) => folderState(folder.id, folder.ancestorIds, marks);
/** Clicks as the console's picker does: with the state the server shows for the marks so far. */
const click = (marks: SelectionMark[], ...folders: FolderRef[]) =>
  folders.reduce((m, f) => toggle(f, stateOf(f, m), m), marks);

describe('selection edits (a click in the folder picker)', () => {
  it('checking a folder includes it; its parent then shows Partial, its children Selected', () => {
    const marks = click([], drawings);
    expect(selectionOf(marks)).toEqual({ include: ['drawings'], exclude: [] });
    expect([stateOf(arch, marks), stateOf(drawings, marks), stateOf(details, marks), stateOf(rfis, marks)]).toEqual([
      'Partial',
      'Selected',
      'Selected',
      'None',
    ]);
  });

  it('unchecking a folder under an included one excludes it, and the included one shows Partial', () => {
    const marks = click([], arch, rfis);
    expect(selectionOf(marks)).toEqual({ include: ['arch'], exclude: ['rfis'] });
    expect([stateOf(arch, marks), stateOf(rfis, marks), stateOf(drawings, marks)]).toEqual([
      'Partial',
      'None',
      'Selected',
    ]);
  });

  it('checking a folder under an excluded one includes it again', () => {
    const marks = click([], arch, drawings, details);
    expect(selectionOf(marks)).toEqual({ include: ['arch', 'details'], exclude: ['drawings'] });
    expect([stateOf(drawings, marks), stateOf(details, marks), stateOf(facade, marks)]).toEqual([
      'Partial',
      'Selected',
      'Selected',
    ]);
  });

  it('checking a Partial folder takes all of it: the marks below it go', () => {
    const marks = click([], arch, rfis, details);
    expect(stateOf(arch, marks)).toBe('Partial');
    const again = click(marks, arch);
    expect(selectionOf(again)).toEqual({ include: ['arch'], exclude: [] });
    expect(stateOf(arch, again)).toBe('Selected');
  });

  it('checking a Partial folder with only includes below it replaces them with one include', () => {
    const marks = click([], facade, rfis);
    expect(stateOf(arch, marks)).toBe('Partial');
    expect(selectionOf(click(marks, arch))).toEqual({ include: ['arch'], exclude: [] });
  });

  it('unchecking an included folder removes it, with every mark below it', () => {
    const marks = click([], arch, rfis, arch);
    expect(stateOf(arch, marks)).toBe('Selected');
    expect(selectionOf(click(marks, arch))).toEqual({ include: [], exclude: [] });
  });

  it('unchecking a folder re-included under an excluded one drops its include, leaving the exclude', () => {
    const marks = click([], arch, drawings, details, details);
    expect(selectionOf(marks)).toEqual({ include: ['arch'], exclude: ['drawings'] });
    expect(stateOf(details, marks)).toBe('None');
  });

  it('leaves other workgroups alone', () => {
    const marks = click([], structural, arch, rfis);
    expect(selectionOf(marks)).toEqual({ include: ['structural', 'arch'], exclude: ['rfis'] });
    expect(selectionOf(click(marks, arch))).toEqual({ include: ['structural', 'arch'], exclude: [] });
  });
});
