/** What replaces a webhook auth value in a request job once it is taken in (still a valid value, so a re-run validates). */
export const REDACTED_AUTH_VALUE = '[removed after intake]';

const AUTH_VALUE_FIELDS = ['apiKey', 'token', 'username', 'password', 'headerValue'] as const;

/**
 * A request job's data without its webhook auth values, or the same object when it holds none. The
 * approval keeps them encrypted; Redis keeps them no longer than intake needs them.
 */
export function withoutAuthValues(data: unknown): unknown {
  const webhook = (data as { webhook?: unknown } | null)?.webhook;
  const authentication = (webhook as { authentication?: unknown } | null | undefined)?.authentication;
  if (!authentication || typeof authentication !== 'object') return data;
  const present = AUTH_VALUE_FIELDS.filter(
    (field) => field in authentication && (authentication as Record<string, unknown>)[field] !== REDACTED_AUTH_VALUE,
  );
  if (!present.length) return data;
  const redacted = { ...authentication, ...Object.fromEntries(present.map((field) => [field, REDACTED_AUTH_VALUE])) };
  return { ...(data as object), webhook: { ...(webhook as object), authentication: redacted } };
}
