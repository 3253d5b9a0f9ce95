import { layOutText, pageAt, utf16Offsets } from './text-layout';

describe("The document text view's layout: pages and a passage over the connector's code-point offsets", () => {
  const text = 'First page.\nSecond page: parapet detail.\nThird.';
  const pages = [
    { page: 1, start: 0, end: 11 },
    { page: 2, start: 12, end: 40 },
    { page: 3, start: 41, end: 47 },
  ];

  it('labels each page where it begins and marks the passage alone', () => {
    const pieces = layOutText(text, pages, { start: 25, end: 39 });
    expect(pieces.map((p) => p.text).join('')).toBe(text);
    expect(pieces.filter((p) => p.marked).map((p) => p.text)).toEqual(['parapet detail']);
    expect(pieces.filter((p) => p.pagesStarting.length).map((p) => [p.pagesStarting, p.text.slice(0, 6)])).toEqual([
      [[1], 'First '],
      [[2], 'Second'],
      [[3], 'Third.'],
    ]);
  });

  it('counts code points as the service does: an emoji before the passage moves it by two UTF-16 units', () => {
    const withEmoji = '🏗️ Site: parapet detail here';
    // [...'🏗️ Site: '] is 9 code points (the crane, a variation selector, then 7), 10 UTF-16 units.
    const start = [...withEmoji].indexOf('p');
    const pieces = layOutText(withEmoji, [], { start, end: start + 'parapet detail'.length });
    expect(pieces.find((p) => p.marked)?.text).toBe('parapet detail');
    expect(utf16Offsets(withEmoji, [start]).get(start)).toBe(withEmoji.indexOf('p'));
  });

  it('keeps empty pages (start = end) as labels, clamps offsets past the end, and shows plain text as one piece', () => {
    const pieces = layOutText(
      'ab\ncd',
      [
        { page: 1, start: 0, end: 2 },
        { page: 2, start: 3, end: 3 },
        { page: 3, start: 3, end: 5 },
      ],
      { start: 3, end: 99 },
    );
    expect(pieces.map((p) => [p.pagesStarting, p.text, p.marked])).toEqual([
      [[1], 'ab\n', false],
      [[2, 3], 'cd', true],
    ]);
    expect(layOutText('plain', [], null)).toEqual([{ text: 'plain', pagesStarting: [], marked: false }]);
  });

  it('says which page an offset lies on', () => {
    expect(pageAt(pages, 25)).toBe(2);
    expect(pageAt(pages, 0)).toBe(1);
    expect(pageAt([], 5)).toBeNull();
  });
});
