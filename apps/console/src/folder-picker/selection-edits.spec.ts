import { FolderRef, Mark, selectionOf, stateOf, toggle } from './selection-edits';

// Architecture ─ Drawings ─ Details ─ Façade
//              └ RFIs
const arch: FolderRef = { id: 'arch', ancestorIds: [] };
const drawings = { id: 'drawings', ancestorIds: ['arch'] };
const details = { id: 'details', ancestorIds: ['arch', 'drawings'] };
const facade = { id: 'facade', ancestorIds: ['arch', 'drawings', 'details'] };
const rfis = { id: 'rfis', ancestorIds: ['arch'] };
const structural: FolderRef = { id: 'structural', ancestorIds: [] };

/** Clicks as the picker does: with the state the server shows for the marks so far. */
const click = (marks: Mark[], ...folders: FolderRef[]) => folders.reduce((m, f) => toggle(f, stateOf(f, m), m), marks);

describe('folder picker selection edits', () => {
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
