import { storableText } from '@app/errors';

/** A successful token response (RFC 6749 §5.1). */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  scopes: string[] | null;
  idToken: string | null;
}

/** RFC 6749 Appendix A.12: `access_token = 1*VSCHAR`. Anything else cannot go into an Authorization header. */
const ACCESS_TOKEN = /^[\x20-\x7e]+$/;

/** An access token said to live longer is taken to live this long (a date past year 275760 is no date). */
const LONGEST_TOKEN_LIFE_SECONDS = 10 * 365 * 86_400;

/** The most of a provider's `error` or `error_description` kept. */
const MAX_REFUSAL_CHARS = 300;

const REDACTED = '[redacted]';

/**
 * Why a success answer's token cannot be used (sent as `Authorization: Bearer`), or null when it can; `words`
 * is `providerWords` of the call, for what the answer says.
 */
export function unusableToken(data: Record<string, unknown>, words: (text: string) => string): string | null {
  if (typeof data.access_token !== 'string' || !ACCESS_TOKEN.test(data.access_token))
    return 'an access_token that is not visible ASCII text (RFC 6749 A.12)';
  // RFC 6749 §7.1: a token of a type we do not speak is not to be used. A missing type is taken for Bearer.
  const type = data.token_type;
  if (type !== undefined && (typeof type !== 'string' || type.toLowerCase() !== 'bearer'))
    return `token_type ${words(JSON.stringify(type)).slice(0, 60)}, not Bearer (RFC 6750)`;
  return null;
}

/** A usable success answer (see `unusableToken`) as the tokens we keep. */
export function tokenSet(data: Record<string, unknown>): TokenSet {
  const expiresIn = Math.min(Number(data.expires_in), LONGEST_TOKEN_LIFE_SECONDS);
  return {
    accessToken: data.access_token as string,
    refreshToken: stringOr(data.refresh_token) ?? null,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(Date.now() + expiresIn * 1000) : null,
    // Kept in a text[] column: what PostgreSQL refuses there (U+0000) becomes U+FFFD.
    scopes: typeof data.scope === 'string' ? storableText(data.scope).split(' ').filter(Boolean) : null,
    idToken: stringOr(data.id_token) ?? null,
  };
}

/**
 * A provider's words on a refusal, as the connection's reason, the answers and the logs can carry them: without
 * the secrets we sent it (a provider may quote the request back: "client_secret 'x' is wrong", its Authorization
 * header too, whose Basic credentials are the secret in base64), then at most MAX_REFUSAL_CHARS, with what
 * PostgreSQL refuses (U+0000, lone surrogates) as U+FFFD.
 */
export function providerWords(
  clientSecret: string,
  params: Record<string, string>,
  authorization?: string,
): (text: string) => string {
  const basic = authorization?.replace(/^Basic\s+/i, '');
  const sent = [clientSecret, basic, params.refresh_token, params.code, params.code_verifier].filter(
    (value): value is string => Boolean(value),
  );
  // As sent, and as the form encoded them; the longest first, so no part of one is left of another.
  const secrets = [...new Set(sent.flatMap((value) => [value, new URLSearchParams({ v: value }).toString().slice(2)]))];
  secrets.sort((a, b) => b.length - a.length);
  return (text) => refusal(secrets.reduce((said, secret) => said.split(secret).join(REDACTED), text));
}

function refusal(text: string): string {
  return storableText(text.slice(0, MAX_REFUSAL_CHARS));
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
