import { request as httpRequest } from 'node:http';

export interface RawRequest {
  method: string;
  /** Sent exactly as written: no client normalises or re-encodes it. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawAnswer {
  status: number;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request as a hostile client sends it, on a fresh connection; a hang past `timeoutMs` fails it. */
export function sendRaw(baseUrl: string, req: RawRequest, timeoutMs = 5_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  const headers = { ...req.headers, ...(body ? { 'content-length': String(body.length) } : {}), connection: 'close' };
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ hostname, port, path: req.path, method: req.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    sent.setTimeout(timeoutMs, () => sent.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    sent.on('error', reject).end(body);
  });
}

/**
 * What a refusal must look like: a 4xx with the contract's error body and nothing else (no stack, no SQL).
 * Answers a short description, or null when it holds, so that a table of cases can list every one that fails.
 */
export function refusalProblem(answer: RawAnswer, allowed: number[] = []): string | null {
  if (allowed.includes(answer.status) && answer.status < 400) return null;
  if (answer.status < 400 || answer.status >= 500) return `status ${answer.status}: ${answer.text.slice(0, 200)}`;
  if (allowed.length && !allowed.includes(answer.status)) return `status ${answer.status}, expected ${allowed}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return `status ${answer.status} without a JSON body: ${answer.text.slice(0, 200)}`;
  }
  const keys = Object.keys(body).sort().join(',');
  const wellFormed =
    keys === 'code,details,error,message,statusCode' &&
    body.statusCode === answer.status &&
    typeof body.error === 'string' &&
    typeof body.message === 'string' &&
    typeof body.code === 'string' &&
    /^[A-Z][A-Z0-9_]*$/.test(body.code) &&
    Array.isArray(body.details);
  return wellFormed ? null : `status ${answer.status} with a body not the contract's: ${answer.text.slice(0, 200)}`;
}

/** Path segments where an id belongs that no id is: NUL, invalid UTF-8 and percent-encoding, and very long. */
export const HOSTILE_ID_SEGMENTS: Array<[string, string]> = [
  ['a percent-encoded NUL', '%00'],
  ['a UUID with a NUL after it', '0b5cbd9e-6c1a-4a8e-9d5b-0f4f1ab3a001%00'],
  ['a broken percent-encoding', '%E0%A4%A'],
  ['a lone surrogate in UTF-8', '%ED%A0%80'],
  ['a lone percent sign', '%'],
  ['a 4,000-character segment', 'a'.repeat(4_000)],
];

/** Bodies that are JSON but not an object, or not JSON as their Content-Type says. */
export const HOSTILE_BODIES: Array<[string, Record<string, string>, string | Buffer]> = [
  ['a JSON array', { 'content-type': 'application/json' }, '[]'],
  ['JSON null', { 'content-type': 'application/json' }, 'null'],
  ['a JSON string', { 'content-type': 'application/json' }, '"x"'],
  ['a JSON number', { 'content-type': 'application/json' }, '1e309'],
  ['an array of objects', { 'content-type': 'application/json' }, '[{"name":"x"}]'],
  ['a __proto__ key', { 'content-type': 'application/json' }, '{"__proto__":{"admin":true}}'],
  ['a constructor key', { 'content-type': 'application/json' }, '{"constructor":{"prototype":{"admin":true}}}'],
  ['a NUL in a key', { 'content-type': 'application/json' }, '{"na\\u0000me":"x"}'],
  ['a lone surrogate in a key', { 'content-type': 'application/json' }, '{"\\ud800":"x"}'],
  ['UTF-16 announced', { 'content-type': 'application/json; charset=utf-16' }, '{}'],
  ['Latin-1 announced', { 'content-type': 'application/json; charset=latin1' }, '{}'],
  ['bytes that are no UTF-8', { 'content-type': 'application/json' }, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])],
  ['JSON sent as text/plain', { 'content-type': 'text/plain' }, '{"name":"x"}'],
  ['JSON without a Content-Type', {}, '{"name":"x"}'],
  ['a truncated JSON object', { 'content-type': 'application/json' }, '{"name":'],
  ['an encoding no one inflates', { 'content-type': 'application/json', 'content-encoding': 'compress' }, '{}'],
];

/** Values where a string or a number belongs that no valid body holds. */
export const HOSTILE_VALUES: Array<[string, string]> = [
  ['a string with U+0000', '"a\\u0000b"'],
  ['a lone high surrogate', '"a\\ud800b"'],
  ['a lone low surrogate', '"\\udfff"'],
  ['1e309 (Infinity once parsed)', '1e309'],
  ['-0', '-0'],
  ['2^53 + 1', '9007199254740993'],
  ['an object', '{"a":1}'],
  ['an array of strings', '["a","b"]'],
  ['true', 'true'],
];

/** Authorization headers that carry no valid platform token: each answers 401. */
export const HOSTILE_AUTHORIZATIONS: Array<[string, string]> = [
  ['no token after Bearer', 'Bearer'],
  ['two tokens', 'Bearer a b'],
  ['another scheme', 'Basic YWRtaW46YWRtaW4='],
  ['a token of 6,000 characters', `Bearer ${'x'.repeat(6_000)}`],
  [
    'an unsigned token',
    `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"u","tenant":"t","exp":9999999999}').toString('base64url')}.`,
  ],
  ['a token of three dots', 'Bearer ...'],
  ['a token with non-Base64 parts', 'Bearer %%.%%.%%'],
];

/** URLs of odd spellings where a service URL belongs: each is saved or refused, never a 500. */
export const HOSTILE_URLS: string[] = [
  'https://a..b/',
  `https://${'a'.repeat(64)}.${'b'.repeat(250)}.com/`,
  'https://xn--/',
  'http://[::ffff:127.0.0.1]:0/',
  'https://example.com:99999/',
  'https://u:p@example.com/',
  'javascript:alert(1)',
  'https://exa%20mple.com/',
  'https://例え.jp/',
  'https:///path',
  'https://1.1.1.1.1/',
  'https://0x7f.1/',
  'http://127.1:1/',
  'https://[fe80::1%25eth0]/',
  'https://.',
  'https://-a-.com/',
];

/** A JSON body with the value at `field` (a dotted path, `[0]` or `.0` for an array's item) replaced by raw JSON text. */
export function withRawValue(body: unknown, field: string, rawJson: string): string {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  const keys = field.replace(/\[(\d+)\]/g, '.$1').split('.');
  let at: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[keys[keys.length - 1]] = RAW_MARK;
  return JSON.stringify(copy).replace(JSON.stringify(RAW_MARK), rawJson);
}
const RAW_MARK = '\u2063raw\u2063';
