/** Field names that carry a credential in any job of any queue (webhook auth values, tokens, passwords). */
const SECRET_FIELDS = new Set([
  'apikey',
  'token',
  'password',
  'headervalue',
  'secret',
  'clientsecret',
  'accesstoken',
  'refreshtoken',
  'callbacktoken',
  'authorization',
]);

export const REDACTED = '[redacted]';

/** A job's data as the dashboard may show it: every credential field, at any depth, replaced. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      SECRET_FIELDS.has(key.toLowerCase()) && item != null ? REDACTED : redactSecrets(item, depth + 1),
    ]),
  );
}
