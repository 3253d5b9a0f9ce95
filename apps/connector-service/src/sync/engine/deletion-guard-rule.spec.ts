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

  it('holds a run that would delete more than the percentage of all documents, in an admin’s words', () => {
    expect(holdReason([tally('a', 10, 4)], 30)).toEqual({
      error:
        '4 documents are no longer in the document system: that is 4 of 10 documents, more than the 30% a sync ' +
        'deletes on its own. They are kept until you confirm their deletion.',
      fileReason: 'More than 30% of the documents would go at once',
    });
    expect(holdReason([tally('a', 5, 4), tally('b', 5, 0)], 30)?.error).toMatch(/4 of 10/);
  });

  it('names no API path and no environment variable', () => {
    for (const reason of [holdReason([tally('a', 10, 4)], 30), holdReason([tally('a', 2, 2), tally('b', 98, 0)], 30)])
      expect(JSON.stringify(reason)).not.toMatch(/\/v1\/|POST|DELETE_GUARD_PERCENT|\(s\)/);
  });

  it('holds a run when every document under a selected folder is gone, however few', () => {
    expect(holdReason([tally('a', 98, 0), tally('b', 2, 2)], 30)).toEqual({
      error:
        '2 documents are no longer in the document system: the selected folder /b is gone or empty. They are kept ' +
        'until you confirm their deletion.',
      fileReason: 'Its selected folder is gone or empty',
    });
  });

  it('does not count documents outside the selection, on either side, nor names them among those kept (they are dropped)', () => {
    expect(holdReason([tally('a', 4, 0), tally(null, 6, 6)], 30)).toBeNull();
    expect(holdReason([tally('a', 4, 1), tally(null, 6, 6)], 30)).toBeNull();
    expect(holdReason([tally('a', 4, 2), tally(null, 6, 6)], 30)?.error).toMatch(/^2 documents are .*2 of 4/);
    // Deselecting most of a data source does not let most of what stays selected go unheld.
    expect(holdReason([tally('b', 3, 2), tally(null, 7, 7)], 30)?.error).toMatch(/^2 documents are .*2 of 3/);
  });

  it('holds any deletion at 0 percent and none by percentage at 100', () => {
    expect(holdReason([tally('a', 100, 1)], 0)?.error).toMatch(/^1 document is no longer/);
    expect(holdReason([tally('a', 100, 99)], 100)).toBeNull();
  });
});
