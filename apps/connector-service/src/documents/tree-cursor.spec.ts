import { ValidationFailedException } from '@app/errors';
import { decodeTreeCursor, encodeTreeCursor } from './tree-cursor';

describe(decodeTreeCursor.name, () => {
  it('reads back every cursor it hands out', () => {
    const cursors = [
      { stage: 'folders' as const, after: { name: 'Détails – Façade', id: 'f-42' } },
      { stage: 'files' as const, after: { name: 'RFI-025.md', id: '3f2c1d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f' } },
      { stage: 'files' as const, after: null },
    ];
    for (const cursor of cursors) expect(decodeTreeCursor(encodeTreeCursor(cursor))).toEqual(cursor);
  });

  it.each([
    ['not base64 JSON', 'not-a-cursor'],
    ['another shape', Buffer.from('{"offset":5}').toString('base64url')],
    ['an unknown stage', Buffer.from('["documents","a","b"]').toString('base64url')],
    ['a file key that is not a document id', Buffer.from('["files","a","1 OR 1=1"]').toString('base64url')],
    ['a folder stage without a key', Buffer.from('["folders",null,null]').toString('base64url')],
  ])('refuses %s with VALIDATION_FAILED', (_what, raw) => {
    expect(() => decodeTreeCursor(raw)).toThrow(ValidationFailedException);
  });
});
