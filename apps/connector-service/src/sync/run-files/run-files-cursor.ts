import { ValidationFailedException } from '@app/errors';

/** Opaque to clients: the externalId the page goes on after. */
export function encodeRunFilesCursor(afterExternalId: string): string {
  return Buffer.from(JSON.stringify(['after', afterExternalId])).toString('base64url');
}

/** Reads a cursor this service handed out; anything else is a 400, never a query. */
export function decodeRunFilesCursor(raw: string): string {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (!Array.isArray(parts) || parts.length !== 2 || parts[0] !== 'after') throw malformed();
  const after: unknown = parts[1];
  if (typeof after !== 'string' || after.includes('\u0000')) throw malformed();
  return after;
}

function malformed(): ValidationFailedException {
  const problem = 'cursor must be the nextCursor of a previous page';
  return new ValidationFailedException(problem, [{ field: 'cursor', problems: [problem] }]);
}
