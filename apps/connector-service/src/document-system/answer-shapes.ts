/**
 * What the connector keeps of each kind of document-system answer. Pure: run in a parser process for large
 * answers, in place for small ones. Only the contract's fields are kept, and only when they are plain values,
 * so what crosses back to the event loop is bounded by the page's items, not by what the answer nests.
 */
export type AnswerShape = 'session' | 'error' | 'workgroups' | 'children';

export type ReadAnswer =
  | { ok: true; value: unknown }
  | { ok: false; problem: 'NotJson' | 'NotAListing' | 'TooManyItems' | 'TooManyValues'; items?: number };

/**
 * The most JSON values an answer may hold, counted as its objects, arrays and commas (a page of n empty
 * objects counts about 2n). Parsed, each costs heap: 16 MiB of `{},` is 5 million objects, past a parser
 * process's 128 MB; a million empty objects fit. Refused here, such an answer costs no parse at all. A listing of LISTING_MAX_ITEMS (10,000) items of the contract's fields counts about 100,000.
 */
export const MAX_ANSWER_VALUES = 2_000_000;

const ITEM_FIELDS: Record<'workgroups' | 'children', readonly string[]> = {
  workgroups: ['id', 'name', 'rootFolderId'],
  children: ['kind', 'id', 'name', 'parentId', 'size', 'mimeType', 'version', 'modifiedAt', 'sha256'],
};

/** `text` read as the given shape; a listing holds at most `maxItems` items. */
export function readAnswer(text: string, shape: AnswerShape, maxItems: number): ReadAnswer {
  if (holdsMoreValues(text, MAX_ANSWER_VALUES)) return { ok: false, problem: 'TooManyValues' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'NotJson' };
  }
  const object = isObject(body) ? body : {};
  if (shape === 'session') return { ok: true, value: pick(object, ['sessionToken', 'expiresIn']) };
  if (shape === 'error') return { ok: true, value: pick(object, ['error']) };
  const items = object.items ?? [];
  if (!Array.isArray(items)) return { ok: false, problem: 'NotAListing' };
  if (items.length > maxItems) return { ok: false, problem: 'TooManyItems', items: items.length };
  const nextCursor = typeof object.nextCursor === 'string' && object.nextCursor !== '' ? object.nextCursor : null;
  const fields = ITEM_FIELDS[shape];
  return { ok: true, value: { items: items.map((item) => pick(isObject(item) ? item : {}, fields)), nextCursor } };
}

/** The named fields that hold a string, number or boolean; nothing nested comes through. */
function pick(object: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const field of fields) {
    const value = object[field];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') kept[field] = value;
  }
  return kept;
}

/** Whether the JSON text holds more than `limit` values (objects, arrays and commas outside strings), without parsing it. */
function holdsMoreValues(text: string, limit: number): boolean {
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x2c || c === 0x7b || c === 0x5b) {
      if (++values > limit) return true;
    }
  }
  return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
