import { MAX_ANSWER_VALUES, MAX_HINT_LENGTH, readAnswer } from './answer-shapes';

describe('readAnswer', () => {
  it('keeps the contract fields of each listed item, as plain values only; numbered ids and versions as strings; counts the items it cannot read', () => {
    const text = JSON.stringify({
      items: [
        { kind: 'folder', id: 'f', name: 'F', parentId: 'p', extra: 'x' },
        { kind: 'file', id: 'x', name: 'x.txt', parentId: 'p', size: 3, version: 2, sha256: { deep: [] } },
        { kind: 'file', id: 42, parentId: 7, size: '3', modifiedAt: 1717000000, mimeType: true },
        { kind: 'file', id: 'd1', modifiedAt: '2024-05-01T10:00:00+02:00' },
        { kind: 'file', id: 'd2', modifiedAt: 'yesterday' },
        { kind: 'file', id: 'd3', modifiedAt: '+012024-05-01T00:00:00Z' },
        'not an item',
        { kind: 'file', name: 'no id' },
        { kind: 'link', id: 'l', name: 'a link' },
        { kind: 'folder', id: 'f'.repeat(1025), name: 'a folder no listing task can name' },
        { kind: 'file', id: 'n\u0000', name: '\ud800 half' },
      ],
      nextCursor: 'c',
      junk: [[[{}]]],
    });
    expect(readAnswer(text, 'children', 20)).toEqual({
      ok: true,
      value: {
        items: [
          { kind: 'folder', id: 'f', name: 'F', parentId: 'p' },
          { kind: 'file', id: 'x', name: 'x.txt', parentId: 'p', size: 3, version: '2' },
          { kind: 'file', id: '42', name: '42', parentId: '7' },
          { kind: 'file', id: 'd1', name: 'd1', modifiedAt: '2024-05-01T08:00:00.000Z' },
          { kind: 'file', id: 'd2', name: 'd2' },
          { kind: 'file', id: 'd3', name: 'd3' },
          { kind: 'file', id: 'n\ufffd', name: '\ufffd half' },
        ],
        nextCursor: 'c',
        unreadable: 3, // not an item, no id, a link (the folder of too long an id is none anything known goes by)
      },
    });
  });

  it("keeps a file's change hints only within their bounds, and the file without the rest: a version or time of at most 256 characters, 64 hex digits of sha256, a `type/subtype` of at most 255", () => {
    const sha = 'aB'.repeat(32);
    const long = 'x'.repeat(MAX_HINT_LENGTH + 1);
    const text = JSON.stringify({
      items: [
        { kind: 'file', id: 'ok', version: 'v'.repeat(MAX_HINT_LENGTH), sha256: sha, mimeType: 'text/plain' },
        { kind: 'file', id: 'long', version: long, modifiedAt: `2024-05-01T10:00:00Z${' '.repeat(MAX_HINT_LENGTH)}` },
        { kind: 'file', id: 'sha', sha256: `${sha}0` },
        { kind: 'file', id: 'sha2', sha256: 'g'.repeat(64) },
        { kind: 'file', id: 'mime', mimeType: `text/${'p'.repeat(128)}` },
        { kind: 'file', id: 'mime2', mimeType: 'text/plain; charset=utf-8' },
      ],
      nextCursor: null,
    });
    expect(readAnswer(text, 'children', 10)).toEqual({
      ok: true,
      value: {
        items: [
          {
            kind: 'file',
            id: 'ok',
            name: 'ok',
            version: 'v'.repeat(MAX_HINT_LENGTH),
            sha256: sha,
            mimeType: 'text/plain',
          },
          { kind: 'file', id: 'long', name: 'long' },
          { kind: 'file', id: 'sha', name: 'sha' },
          { kind: 'file', id: 'sha2', name: 'sha2' },
          { kind: 'file', id: 'mime', name: 'mime' },
          { kind: 'file', id: 'mime2', name: 'mime2' },
        ],
        nextCursor: null,
      },
    });
  });

  it('refuses a page over its item limit, and says how long it was', () => {
    const text = JSON.stringify({ items: [1, 2, 3].map((id) => ({ id, rootFolderId: id })), nextCursor: null });
    expect(readAnswer(text, 'workgroups', 2)).toEqual({ ok: false, problem: 'TooManyItems', items: 3 });
    expect(readAnswer(text, 'workgroups', 3)).toMatchObject({ ok: true });
  });

  it('tells an answer that is not JSON or not a listing: one without an items list is no empty page', () => {
    expect(readAnswer('<html>', 'children', 10)).toEqual({ ok: false, problem: 'NotJson' });
    for (const text of ['{"items":{}}', '{"nextCursor":""}', '{"error":"internal_error"}', 'null', '[]', '"items"'])
      for (const shape of ['children', 'workgroups'] as const)
        expect(readAnswer(text, shape, 10)).toEqual({ ok: false, problem: 'NotAListing' });
    expect(readAnswer('{"items":[],"nextCursor":""}', 'children', 10)).toEqual({
      ok: true,
      value: { items: [], nextCursor: null },
    });
  });

  it('keeps only a session answer’s token and lifetime, and an error answer’s error', () => {
    expect(readAnswer('{"sessionToken":"s","expiresIn":60,"x":1}', 'session', 0)).toEqual({
      ok: true,
      value: { sessionToken: 's', expiresIn: 60 },
    });
    expect(readAnswer('{"error":"invalid_session","trace":[1]}', 'error', 0)).toEqual({
      ok: true,
      value: { error: 'invalid_session' },
    });
  });

  it('refuses, without parsing, an answer of more JSON values than a parser process has heap for', () => {
    const page = (items: number) => `{"items":[${'{},'.repeat(items - 1)}{}],"nextCursor":null}`;
    expect(readAnswer(page(MAX_ANSWER_VALUES / 2 + 1), 'children', Infinity)).toEqual({
      ok: false,
      problem: 'TooManyValues',
    });
    expect(readAnswer(page(MAX_ANSWER_VALUES / 4), 'children', Infinity)).toMatchObject({ ok: true });
    // Commas and brackets inside strings are text, not values.
    const text = JSON.stringify({ items: [{ id: 'a', name: ',{['.repeat(MAX_ANSWER_VALUES) }], nextCursor: null });
    expect(readAnswer(text, 'children', 10)).toMatchObject({ ok: true });
  });
});
