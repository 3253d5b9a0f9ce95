import { DEEP_CHUNKS_FROM } from './chunker';
import { joinPages } from './read-text';
import { layOut } from './text-layout';

const clauses = (page: number, count: number) =>
  Array.from({ length: count }, (_, i) => `Page ${page} clause ${i}: seal every penetration.`).join(' ');

describe(layOut.name, () => {
  it('says where every chunk and page lies in code points, and cuts no chunk over a page break', () => {
    const { text, pages } = joinPages(['😀 cover sheet', clauses(2, 200), '', clauses(4, 120)]);
    const layout = layOut(text, pages);
    const chars = [...text];
    const at = (start: number, end: number) => chars.slice(start, end).join('');
    const second = clauses(2, 200).length;
    // The emoji is one character: the cover sheet is 13 long, and a line break comes before each page with text.
    expect(layout.pages).toEqual({
      starts: [0, 14, 14 + second, 14 + second + 1],
      ends: [13, 14 + second, 14 + second, 14 + second + 1 + clauses(4, 120).length],
    });
    pages.forEach((page, i) =>
      expect(at(layout.pages!.starts[i], layout.pages!.ends[i])).toBe(text.slice(page.start, page.end)),
    );
    expect(layout.openingChunks.length).toBe(DEEP_CHUNKS_FROM);
    const [cover, next] = layout.openingChunks;
    expect(at(cover[0], cover[1])).toBe('😀 cover sheet');
    expect(next[0]).toBe(layout.pages!.starts[1]);
    const utf8 = Buffer.from(text);
    for (const [start, end, byteStart, byteEnd] of layout.openingChunks)
      expect(utf8.subarray(byteStart, byteEnd).toString()).toBe(at(start, end));
    for (const chunk of layout.deepChunks) {
      expect(at(chunk.start, chunk.end)).toBe(chunk.text);
      const page = layout.pages!.starts.filter((start) => start <= chunk.start).length;
      expect(chunk.end).toBeLessThanOrEqual(layout.pages!.ends[page - 1]);
    }
  });

  it('has no pages and one range per opening chunk for a text without pages', () => {
    expect(layOut('a short note', [])).toEqual({ deepChunks: [], openingChunks: [[0, 12, 0, 12]], pages: null });
  });
});
