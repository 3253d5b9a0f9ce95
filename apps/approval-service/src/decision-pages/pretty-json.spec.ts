import { prettyJson } from './pretty-json';

describe(prettyJson.name, () => {
  it('indents as JSON.stringify(value, null, 2) does, keys in the order written', () => {
    const values = [
      { zeta: 1, alpha: { b: 2, a: 1 }, mid: [3, { y: null, x: '<b>' }] },
      { empty: {}, none: [], nested: [[], [{}], [1, [2]]], t: true, f: false },
      { 'a "quoted" {key}': 'a, b: [c] \\ "d"', '': '', 'ünï\u2028': 'é😀' },
      [],
      'just a string',
      -1.5e-7,
      null,
    ];
    for (const value of values) {
      const json = JSON.stringify(value);
      expect(prettyJson(json, 1_000)).toEqual({
        text: JSON.stringify(value, null, 2),
        length: JSON.stringify(value, null, 2).length,
      });
    }
  });

  it('keeps numbers, escapes and duplicate keys as written, and drops the whitespace they came with', () => {
    const json = ' { "big" : 12345678901234567890123 ,\n\t"x":1.50, "x": "\\u00e9\\n" , "e" : [ ] } ';
    expect(prettyJson(json, 1_000).text).toBe(
      '{\n  "big": 12345678901234567890123,\n  "x": 1.50,\n  "x": "\\u00e9\\n",\n  "e": []\n}',
    );
  });

  it('builds only the first maxChars characters, counts them all, and never cuts a surrogate pair in half', () => {
    const value = { lines: Array.from({ length: 100 }, (_, i) => `line ${i}`) };
    const whole = JSON.stringify(value, null, 2);
    expect(prettyJson(JSON.stringify(value), 50)).toEqual({ text: whole.slice(0, 50), length: whole.length });

    const emoji = JSON.stringify({ s: '😀😀' }); // {\n  "s": "😀😀"\n}: the first pair ends at character 12
    expect(prettyJson(emoji, 12).text).toBe('{\n  "s": "😀');
    expect(prettyJson(emoji, 11).text).toBe('{\n  "s": "');
    expect(prettyJson(emoji, 11).length).toBe(JSON.stringify({ s: '😀😀' }, null, 2).length);
  });
});
