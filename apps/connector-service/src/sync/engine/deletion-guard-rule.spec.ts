import { holdReason } from './deletion-guard-rule';

const tally = (root: string | null, documents: number, unseen: number) => ({
  root,
  path: root && `/${root}`,
  documents,
  unseen,
});

describe(holdReason.name, () => {
  it('lets a run delete up to the percentage', () => {
    expect(holdReason([tally('a', 10, 3)], 30)).toBeNull();
    expect(holdReason([tally('a', 10, 0)], 30)).toBeNull();
  });

  it('holds a run that would delete more than the percentage of all documents', () => {
    expect(holdReason([tally('a', 10, 4)], 30)).toMatch(/^4 deletion\(s\) held.*4 of 10 documents.*30%/);
    expect(holdReason([tally('a', 5, 4), tally('b', 5, 0)], 30)).toMatch(/4 of 10/);
  });

  it('holds a run when every document under a selected folder is gone, however few', () => {
    expect(holdReason([tally('a', 98, 0), tally('b', 2, 2)], 30)).toMatch(/folder\(s\) \/b vanished/);
  });

  it('does not count documents outside the selection, but holds them with the rest', () => {
    expect(holdReason([tally('a', 4, 0), tally(null, 6, 6)], 30)).toBeNull();
    expect(holdReason([tally('a', 4, 2), tally(null, 6, 6)], 10)).toMatch(/^8 deletion\(s\) held.*2 of 10/);
  });

  it('holds any deletion at 0 percent and none by percentage at 100', () => {
    expect(holdReason([tally('a', 100, 1)], 0)).not.toBeNull();
    expect(holdReason([tally('a', 100, 99)], 100)).toBeNull();
  });
});
