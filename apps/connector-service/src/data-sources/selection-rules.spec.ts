import { folderState, isCovered, SelectionMark, syncRoots } from './selection-rules';

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
