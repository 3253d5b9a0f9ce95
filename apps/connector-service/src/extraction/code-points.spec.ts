import { codePointOffsets } from './code-points';

describe(codePointOffsets.name, () => {
  it('counts a character outside the Basic Multilingual Plane as one, in any order of offsets', () => {
    const text = 'a😀b😀😀c';
    const units = [0, 1, 3, 4, 6, 8, 9, 3];
    const points = codePointOffsets(text, units);
    expect(points).toEqual([0, 1, 2, 3, 4, 5, 6, 2]);
    units.forEach((unit, i) => expect([...text].slice(0, points[i]).join('')).toBe(text.slice(0, unit)));
  });

  it('leaves offsets alone in text without such a character', () => {
    expect(codePointOffsets('plain é text', [0, 5, 12])).toEqual([0, 5, 12]);
  });
});
