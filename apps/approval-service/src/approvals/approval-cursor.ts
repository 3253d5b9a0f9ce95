import { ValidateBy } from 'class-validator';

/** Where a page of the approval list ended: the last approval's createdAt (microseconds, UTC) and id. */
export interface ApprovalCursor {
  at: string;
  id: string;
}

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(cursor: ApprovalCursor): string {
  return Buffer.from(`${cursor.at}|${cursor.id}`).toString('base64url');
}

/** Null for anything encodeCursor did not make. */
export function decodeCursor(raw: string): ApprovalCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) return null;
  const [at, id, extra] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  return extra === undefined && isInstant(at ?? '') && UUID.test(id ?? '') ? { at, id } : null;
}

/** A time as the list writes it, naming a real instant of the years 0001..9999 (Date takes a year 0; PostgreSQL does not). */
function isInstant(at: string): boolean {
  if (!AT.test(at) || at.startsWith('0000')) return false;
  const millis = `${at.slice(0, 23)}Z`;
  const date = new Date(millis);
  return !Number.isNaN(date.getTime()) && date.toISOString() === millis;
}

export const IsApprovalCursor = () =>
  ValidateBy({
    name: 'isApprovalCursor',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && decodeCursor(value) !== null,
      defaultMessage: () => 'cursor must be a value from a previous page (X-Next-Cursor)',
    },
  });
