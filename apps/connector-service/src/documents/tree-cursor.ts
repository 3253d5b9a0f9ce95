import { ValidationFailedException } from '@app/errors';
import type { TreeKey } from './tree.repository';

/** Where a tree page goes on: among the subfolders, or among the files (from the start when `after` is null). */
export interface TreeCursor {
  stage: 'folders' | 'files';
  after: TreeKey | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function encodeTreeCursor(cursor: TreeCursor): string {
  return Buffer.from(JSON.stringify([cursor.stage, cursor.after?.name ?? null, cursor.after?.id ?? null])).toString(
    'base64url',
  );
}

/** Reads a cursor this service handed out; anything else is a 400, never a query. */
export function decodeTreeCursor(raw: string): TreeCursor {
  const parts = parse(Buffer.from(raw, 'base64url').toString('utf8'));
  if (!Array.isArray(parts) || parts.length !== 3) throw malformed();
  const [stage, name, id] = parts as unknown[];
  if (stage !== 'folders' && stage !== 'files') throw malformed();
  if (name === null && id === null && stage === 'files') return { stage, after: null };
  if (typeof name !== 'string' || typeof id !== 'string' || name.includes('\u0000') || id.includes('\u0000'))
    throw malformed();
  if (stage === 'files' && !UUID.test(id)) throw malformed();
  return { stage, after: { name, id } };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw malformed();
  }
}

function malformed(): ValidationFailedException {
  const problem = 'cursor must be the nextCursor of a previous page';
  return new ValidationFailedException(problem, [{ field: 'cursor', problems: [problem] }]);
}
