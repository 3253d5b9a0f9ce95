/** A range of a document's text in characters (Unicode code points), as the connector counts them. */
export interface CharRange {
  start: number;
  end: number;
}

/** A PDF page's range in the text. */
export interface PageOfText extends CharRange {
  page: number;
}

/** A run of the text to show: the pages that begin where it begins, and whether the passage holds it. */
export interface TextPiece {
  text: string;
  /** Pages beginning at this piece's start (more than one when pages before it are empty). */
  pagesStarting: number[];
  marked: boolean;
}

/**
 * Cuts the text where pages begin and where the passage begins and ends. The service counts code points
 * (as Python and PostgreSQL do) and JavaScript strings count UTF-16 units, so the offsets are converted
 * in one walk over the text; an offset past the end is the end.
 */
export function layOutText(text: string, pages: PageOfText[], passage: CharRange | null): TextPiece[] {
  const marks = passage && passage.end > passage.start ? passage : null;
  const wanted = [0, ...pages.map((p) => p.start), ...(marks ? [marks.start, marks.end] : [])];
  const unit = utf16Offsets(text, wanted);
  const cuts = [...new Set([...unit.values(), text.length])].sort((a, b) => a - b);
  const startsAt = new Map<number, number[]>();
  for (const p of pages) startsAt.set(unit.get(p.start)!, [...(startsAt.get(unit.get(p.start)!) ?? []), p.page]);
  const from = marks ? unit.get(marks.start)! : -1;
  const to = marks ? unit.get(marks.end)! : -1;
  const pieces: TextPiece[] = [];
  for (let i = 0; i < cuts.length; i++) {
    const at = cuts[i];
    const next = cuts[i + 1] ?? text.length;
    const pagesStarting = startsAt.get(at) ?? [];
    if (next === at && !pagesStarting.length) continue;
    pieces.push({ text: text.slice(at, next), pagesStarting, marked: at >= from && next <= to && next > at });
  }
  return pieces;
}

/** "page 12 · characters 1,200–1,850": where a range lies (no page for files other than PDFs). */
export function placeOf(range: CharRange, page: number | null): string {
  return page !== null ? `page ${page} · ${charactersOf(range)}` : charactersOf(range);
}

/** "characters 1,200–1,850". */
export const charactersOf = (range: CharRange): string =>
  `characters ${range.start.toLocaleString('en-US')}–${range.end.toLocaleString('en-US')}`;

/** The page holding a code-point offset (the last page starting at or before it); null without pages. */
export function pageAt(pages: PageOfText[], offset: number): number | null {
  let found: number | null = null;
  for (const p of pages) if (p.start <= offset) found = p.page;
  return found;
}

/** Each code-point offset's index in UTF-16 units. */
export function utf16Offsets(text: string, offsets: number[]): Map<number, number> {
  const sorted = [...new Set(offsets)].sort((a, b) => a - b);
  const out = new Map<number, number>();
  let unit = 0;
  let point = 0;
  for (const offset of sorted) {
    while (point < offset && unit < text.length) {
      const code = text.charCodeAt(unit);
      const pair = code >= 0xd800 && code <= 0xdbff && unit + 1 < text.length;
      const low = pair ? text.charCodeAt(unit + 1) : 0;
      unit += pair && low >= 0xdc00 && low <= 0xdfff ? 2 : 1;
      point++;
    }
    out.set(offset, unit);
  }
  return out;
}
