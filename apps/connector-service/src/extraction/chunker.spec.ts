import { chunkText, DEEP_CHUNKS_FROM } from './chunker';
import { normalise } from './text-formats';

describe(chunkText.name, () => {
  it('keeps short text in one chunk', () => {
    expect(chunkText('a short note')).toEqual([{ index: 0, text: 'a short note', start: 0, end: 12 }]);
    expect(chunkText('')).toEqual([]);
  });

  it('says where each chunk lies in the text it was cut from, its blanks trimmed', () => {
    const text = normalise(Array.from({ length: 900 }, (_, i) => `clause ${i} applies.${i % 9 ? ' ' : '\n'}`).join(''));
    const chunks = chunkText(text, 300, 60);
    expect(chunks.length).toBeGreaterThan(20);
    for (const chunk of chunks) {
      expect(text.slice(chunk.start, chunk.end)).toBe(chunk.text);
      expect(chunk.text).toBe(chunk.text.trim());
    }
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

  it('never cuts a character beyond the BMP in two, where no blank is near', () => {
    const text = `a${'😀'.repeat(6000)}`;
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(8);
    for (const chunk of chunks)
      expect(chunk.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('keeps a phrase whole when it straddles a boundary', () => {
    const text = `${'filler '.repeat(27)}seismic bracing detail SB-7 ${'filler '.repeat(40)}`;
    expect(chunkText(text, 200, 60).some((c) => c.text.includes('seismic bracing detail SB-7'))).toBe(true);
  });

  it("leaves nothing of the first chunks past the document's first 10,000 characters (only later chunks are stored)", () => {
    // Every text is made of unique pieces, so where a chunk's text occurs is where the chunk was cut.
    const texts = [
      Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join(''),
      Array.from({ length: 6000 }, (_, i) => `w${i}${'w'.repeat((i * 7919) % 23)}`).join(' '),
      Array.from({ length: 200 }, (_, i) => `${i}${'y'.repeat(590 + (i % 20))}`).join(' '),
      normalise(Array.from({ length: 4000 }, (_, i) => `spec ${i}  \n\n\n   `).join('')),
    ];
    for (const text of texts) {
      const chunks = chunkText(text);
      let end = 0;
      for (let i = 0, from = 0; i < DEEP_CHUNKS_FROM; i++) {
        const at = text.indexOf(chunks[i].text, from);
        end = at + chunks[i].text.length;
        from = at + 1;
      }
      expect(end).toBeLessThanOrEqual(10_000);
    }
  });

  it('cuts text without a blank as fast as any: 2,000,000 characters in well under a second', () => {
    const started = performance.now();
    const chunks = chunkText('x'.repeat(2_000_000), 1200, 150);
    expect(performance.now() - started).toBeLessThan(500);
    expect(chunks).toHaveLength(Math.ceil((2_000_000 - 150) / 1050));
    expect(chunks.every((c) => c.text.length <= 1200)).toBe(true);
  });
});
