import { LONE_SURROGATES } from '../common/storable-text';

/**
 * Text of the formats read without a library, in time linear in the input: no pattern here may try
 * every start of an unbounded run and fail (blanks-around-a-newline over a megabyte of `\r` took a quarter of an hour).
 */

const HIDDEN_ELEMENTS = ['script', 'style', 'noscript'];
const LINE_BREAK_TAG = /^(br\s*\/?|\/(p|div|li|h[1-6]|tr))$/i;
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Text of HTML: scripts and styles dropped, a tag becomes a space, a line break or block end a newline. */
export function htmlText(html: string): string {
  return decodeEntities(withoutTags(withoutHiddenElements(html)));
}

/** Values only: keys repeat in every record and drown out what matters. */
export function jsonText(json: string): string {
  const values: string[] = [];
  const walk = (v: unknown): void => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'object') Object.values(v as object).forEach(walk);
    else values.push(String(v));
  };
  walk(JSON.parse(json));
  return values.join('\n');
}

/**
 * Single spaces, and one newline for any run of blanks with a line break in it; no NULs, no blanks at the ends.
 * Only runs that change are matched: V8 holds every match of a replace until it ends, and one match per word
 * took a 20 MiB file past its thread's heap.
 */
export function normalise(text: string): string {
  return text
    .replaceAll('\u0000', '')
    .replace(LONE_SURROGATES, '\ufffd') // PostgreSQL refuses half a pair in jsonb (a chunk's row)
    .replace(/ [ \t\f\v]+|[\t\f\v][ \t\f\v]*/g, ' ')
    .replace(/[^\S ]\s*|\s{2,}/g, (blanks) => (blanks.includes('\n') ? '\n' : blanks))
    .trim();
}

/**
 * Each `<script…` up to its `</script>` becomes a space. One that is never closed stays (its tag is
 * dropped later) and so does every later one of that element: a failed search is never repeated.
 */
function withoutHiddenElements(html: string): string {
  const opening = new RegExp(`<(${HIDDEN_ELEMENTS.join('|')})`, 'gi');
  const unclosed = new Set<string>();
  const parts: string[] = [];
  let from = 0;
  for (let match = opening.exec(html); match; match = opening.exec(html)) {
    const element = match[1].toLowerCase();
    if (unclosed.has(element)) continue;
    const closing = new RegExp(`</${element}>`, 'gi');
    closing.lastIndex = opening.lastIndex;
    if (!closing.exec(html)) {
      unclosed.add(element);
      continue;
    }
    parts.push(html.slice(from, match.index), ' ');
    from = opening.lastIndex = closing.lastIndex;
  }
  parts.push(html.slice(from));
  return parts.join('');
}

/** A tag is `<` up to the next `>` with something between; a `<` with no `>` after it is text. */
function withoutTags(html: string): string {
  const parts: string[] = [];
  let from = 0;
  for (let open = html.indexOf('<'); open !== -1; open = html.indexOf('<', open + 1)) {
    const close = html.indexOf('>', open + 1);
    if (close === -1) break;
    if (close === open + 1) continue;
    parts.push(html.slice(from, open), LINE_BREAK_TAG.test(html.slice(open + 1, close)) ? '\n' : ' ');
    from = close + 1;
    open = close;
  }
  parts.push(html.slice(from));
  return parts.join('');
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x?[0-9a-f]+|\w+);/gi, (match, entity: string) => {
    if (entity[0] !== '#') return NAMED_ENTITIES[entity.toLowerCase()] ?? match;
    const code = entity[1].toLowerCase() === 'x' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
}
