import { isMediaType } from '../common/media-type';
import { storableText } from '../common/storable-text';

/**
 * What the connector keeps of each kind of document-system answer. Pure: run in a parser process for large
 * answers, in place for small ones. Only the contract's fields are kept, and only when they are plain values,
 * so what crosses back to the event loop is bounded by the page's items, not by what the answer nests.
 */
export type AnswerShape = 'session' | 'error' | 'workgroups' | 'children';

export type ReadAnswer =
  | { ok: true; value: unknown }
  | {
      ok: false;
      problem: 'NotJson' | 'NotAListing' | 'CursorTooLong' | 'TooManyItems' | 'TooManyValues';
      items?: number;
    };

/** The longest `nextCursor` taken: a next page's cursor travels in its listing job (and its key). */
export const MAX_CURSOR_LENGTH = 4096;

/**
 * The most JSON values an answer may hold, counted as its objects, arrays and commas (a page of n empty
 * objects counts about 2n). Parsed, each costs heap: 16 MiB of `{},` is 5 million objects, past a parser
 * process's 128 MB; a million empty objects fit. Refused here, such an answer costs no parse at all. A listing of LISTING_MAX_ITEMS (10,000) items of the contract's fields counts about 100,000.
 */
export const MAX_ANSWER_VALUES = 2_000_000;

/**
 * How each kept field is read: `name` a string (a number is taken as the string it stands for: many systems
 * number their ids and versions), `hint` a name of at most MAX_HINT_LENGTH characters, `text` a string only
 * (either with what the database refuses, U+0000 and lone surrogates, as U+FFFD), `count` a number only, `time`
 * a string of at most MAX_HINT_LENGTH characters that reads as a time in years 1–9999 (kept in ISO form: the
 * database takes it), `mediaType` a `type/subtype` a Content-Type header can carry, `sha256` 64 hex digits.
 * Anything else is left out: these are optional change hints, and an item without them is still synced (its
 * content downloaded and hashed by the connector).
 */
type FieldKind = 'name' | 'hint' | 'text' | 'count' | 'time' | 'mediaType' | 'sha256';

/** The longest version or time taken: each travels in every ingest job and is stored with its document. */
export const MAX_HINT_LENGTH = 256;
/** A SHA-256 as a listing may give it (any case); anything else tells nothing. */
export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

const ITEM_FIELDS: Record<'workgroups' | 'children', Record<string, FieldKind>> = {
  workgroups: { id: 'name', name: 'name', rootFolderId: 'name' },
  children: {
    kind: 'text',
    id: 'name',
    name: 'name',
    parentId: 'name',
    size: 'count',
    mimeType: 'mediaType',
    version: 'hint',
    modifiedAt: 'time',
    sha256: 'sha256',
  },
};
/** The longest id taken: a folder's id is part of its listing task's key (a btree entry: under 2.7 kB). */
export const MAX_ID_LENGTH = 1024;
/** An item without these (or with a longer id) is none the connector can go on with (no folder to list, no file to fetch). */
const ITEM_NEEDS: Record<'workgroups' | 'children', readonly string[]> = {
  workgroups: ['id', 'rootFolderId'],
  children: ['id', 'kind'],
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
  if (shape === 'session') return { ok: true, value: pick(object, { sessionToken: 'text', expiresIn: 'count' }) };
  if (shape === 'error') return { ok: true, value: pick(object, { error: 'text' }) };
  // A listing is an object with an `items` list (CONTRACT.md): any other answer (an error object, null) is no empty one.
  const items = object.items;
  if (!Array.isArray(items)) return { ok: false, problem: 'NotAListing' };
  if (items.length > maxItems) return { ok: false, problem: 'TooManyItems', items: items.length };
  const nextCursor = typeof object.nextCursor === 'string' && object.nextCursor !== '' ? object.nextCursor : null;
  if (nextCursor && nextCursor.length > MAX_CURSOR_LENGTH) return { ok: false, problem: 'CursorTooLong' };
  const kept: Array<Record<string, unknown>> = [];
  let unreadable = 0;
  for (const item of items) {
    const entry = listedItem(item, shape);
    if (entry === 'unreadable') unreadable++;
    else if (entry !== 'unnamable') kept.push(entry);
  }
  return { ok: true, value: { items: kept, nextCursor, ...(unreadable ? { unreadable } : {}) } };
}

/**
 * A listed item's fields (a file or folder without a name goes by its id), or why it is left out: `unreadable`
 * when it is not an object, lacks what the connector needs of it, or is of a kind the contract does not name (it
 * may be a known document: a sync fails its page); `unnamable` when its id is longer than MAX_ID_LENGTH (no such
 * item is ever taken, so nothing known goes by it).
 */
function listedItem(item: unknown, shape: 'workgroups' | 'children'): Record<string, unknown> | ItemLeftOut {
  const kept = pick(isObject(item) ? item : {}, ITEM_FIELDS[shape]);
  const missing = (field: string) => kept[field] === undefined || kept[field] === '';
  if (ITEM_NEEDS[shape].some(missing)) return 'unreadable';
  if (shape === 'children' && kept.kind !== 'file' && kept.kind !== 'folder') return 'unreadable';
  if (ITEM_NEEDS[shape].some((field) => (kept[field] as string).length > MAX_ID_LENGTH)) return 'unnamable';
  return { ...kept, name: kept.name ?? kept.id };
}

type ItemLeftOut = 'unreadable' | 'unnamable';

/** The named fields that hold a value of their kind; nothing nested comes through. */
function pick(object: Record<string, unknown>, fields: Record<string, FieldKind>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(fields)) {
    const value = object[field];
    const taken = fieldValue(kind, value);
    if (taken !== undefined) kept[field] = taken;
  }
  return kept;
}

function fieldValue(kind: FieldKind, value: unknown): unknown {
  if (kind === 'count') return typeof value === 'number' ? value : undefined;
  if (kind === 'time') return typeof value === 'string' && value.length <= MAX_HINT_LENGTH ? isoTime(value) : undefined;
  if (kind === 'mediaType') return typeof value === 'string' && isMediaType(value) ? value : undefined;
  if (kind === 'sha256') return typeof value === 'string' && SHA256_HEX.test(value) ? value : undefined;
  const text =
    typeof value === 'string' ? value : kind !== 'text' && Number.isFinite(value) ? String(value) : undefined;
  if (text === undefined || (kind === 'hint' && text.length > MAX_HINT_LENGTH)) return undefined;
  return storableText(text);
}

function isoTime(text: string): string | undefined {
  const time = new Date(text);
  if (!Number.isFinite(time.getTime())) return undefined;
  const iso = time.toISOString();
  return /^\d{4}-/.test(iso) && !iso.startsWith('0000') ? iso : undefined;
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
