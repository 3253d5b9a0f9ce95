/**
 * What the connector keeps of each kind of document-system answer. Pure: run in a parser thread for large
 * answers, in place for small ones. Only the contract's fields are kept, and only when they are plain values,
 * so what crosses back to the event loop is bounded by the page's items, not by what the answer nests.
 */
export type AnswerShape = 'session' | 'error' | 'workgroups' | 'children';

export type ReadAnswer =
  { ok: true; value: unknown } | { ok: false; problem: 'NotJson' | 'NotAListing' | 'TooManyItems'; items?: number };

const ITEM_FIELDS: Record<'workgroups' | 'children', readonly string[]> = {
  workgroups: ['id', 'name', 'rootFolderId'],
  children: ['kind', 'id', 'name', 'parentId', 'size', 'mimeType', 'version', 'modifiedAt', 'sha256'],
};

/** `text` read as the given shape; a listing holds at most `maxItems` items. */
export function readAnswer(text: string, shape: AnswerShape, maxItems: number): ReadAnswer {
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
