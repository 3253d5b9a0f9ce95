import { chunkText } from './chunker';

describe(chunkText.name, () => {
  it('keeps short text in one chunk', () => {
    expect(chunkText('a short note')).toEqual([{ index: 0, text: 'a short note' }]);
    expect(chunkText('')).toEqual([]);
  });

  it('cuts long text at whitespace with overlap, losing no word', () => {
    const words = Array.from({ length: 2000 }, (_, i) => `w${i}`);
    const chunks = chunkText(words.join(' '), 200, 40);
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(200);
      expect(chunk.text.split(' ').every((w) => /^w\d+$/.test(w))).toBe(true);
    }
    const seen = new Set(chunks.flatMap((c) => c.text.split(' ')));
    expect(seen.size).toBe(words.length);
  });

  it('keeps a phrase whole when it straddles a boundary', () => {
    const text = `${'filler '.repeat(27)}seismic bracing detail SB-7 ${'filler '.repeat(40)}`;
    expect(chunkText(text, 200, 60).some((c) => c.text.includes('seismic bracing detail SB-7'))).toBe(true);
  });

  it('cuts text without a blank as fast as any: 2,000,000 characters in well under a second', () => {
    const started = performance.now();
    const chunks = chunkText('x'.repeat(2_000_000), 1200, 150);
    expect(performance.now() - started).toBeLessThan(500);
    expect(chunks).toHaveLength(Math.ceil((2_000_000 - 150) / 1050));
    expect(chunks.every((c) => c.text.length <= 1200)).toBe(true);
  });
});
