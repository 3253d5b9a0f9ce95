import type { PassageView } from '@app/contracts/views';
import { withinChars } from './passage-budget';

const passage = (text: string, start = 100): PassageView => ({
  documentId: 'd',
  dataSourceId: 's',
  name: 'n.txt',
  path: '/n.txt',
  text,
  start,
  end: start + [...text].length,
  page: null,
  score: 0.1,
});

describe(withinChars.name, () => {
  it('keeps every passage that fits', () => {
    const all = [passage('a'.repeat(100)), passage('b'.repeat(100))];
    expect(withinChars(all, 200)).toEqual({ passages: all, truncated: false });
  });

  it('cuts the passage that reaches the limit at a blank, moves its end, and leaves out the rest', () => {
    const all = [passage('x'.repeat(150)), passage('alpha beta gamma delta', 40), passage('later')];
    const { passages, truncated } = withinChars(all, 165);
    expect(truncated).toBe(true);
    expect(passages).toEqual([all[0], { ...all[1], text: 'alpha beta', end: 50 }]);
  });

  it('counts a character outside the Basic Multilingual Plane as one, as the offsets do', () => {
    const { passages } = withinChars([passage('😀😀😀😀 and more words', 7)], 6);
    expect(passages[0]).toMatchObject({ text: '😀😀😀😀', start: 7, end: 11 });
  });

  it('leaves out a passage with no room left at all', () => {
    const all = [passage('y'.repeat(200)), passage('z')];
    expect(withinChars(all, 200)).toEqual({ passages: [all[0]], truncated: true });
  });
});
