import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { parse as parseForm } from 'node:querystring';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, InputType, ZlibOptions } from 'node:zlib';
import { MAX_BODY_BYTES } from './body-limits';
import { unreadBodyError } from './unread-bodies';

type Done = (error: Error | null, body?: unknown) => void;
type Inflate = (body: InputType, options: ZlibOptions) => Promise<Buffer>;

const INFLATERS: Record<string, Inflate> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress) as Inflate,
};
const UTF8 = new TextDecoder('utf-8');
/** body-parser's test of a JSON body's first character, past JSON's blanks (no copy of the text, as trimStart made). */
const FIRST_CHAR = /^[ \t\n\r]*([^ \t\n\r])/;
/** body-parser's limit of a form's fields (more: 413). */
const MAX_FORM_FIELDS = 1_000;

/**
 * The bodies an app accepts, read as Express's body-parser reads them: JSON objects and arrays in UTF-8
 * (a BOM dropped, a byte that is no UTF-8 read as U+FFFD, an empty body `{}`), HTML forms in UTF-8 or
 * ISO-8859-1, gzip, deflate and br inflated to the same 1 MiB, and any other type read to the limit and
 * refused (415) unless empty. A refusal carries body-parser's `type`, so the error filter answers it alike on
 * both adapters.
 */
export function acceptFastifyBodies(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const options = { parseAs: 'buffer' as const, bodyLimit: MAX_BODY_BYTES };
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    options,
    (req: FastifyRequest, raw: Buffer, done: Done) =>
      void settle(done, async () => parseJson(req, await inflated(req, raw))),
  );
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    options,
    (req: FastifyRequest, raw: Buffer, done: Done) =>
      void settle(done, async () => parseHtmlForm(req, await inflated(req, raw))),
  );
  fastify.addContentTypeParser('*', options, (_req, raw: Buffer, done) =>
    done(raw.length ? unreadBodyError() : null, undefined),
  );
}

async function settle(done: Done, parse: () => Promise<unknown>): Promise<void> {
  try {
    done(null, await parse());
  } catch (error) {
    done(error as Error, undefined);
  }
}

async function inflated(req: FastifyRequest, raw: Buffer): Promise<Buffer> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding === 'identity') return raw;
  const inflate = INFLATERS[encoding];
  if (!inflate) throw bodyError(415, 'encoding.unsupported');
  try {
    return await inflate(raw, { maxOutputLength: MAX_BODY_BYTES });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw bodyError(413, 'entity.too.large');
    throw bodyError(400, 'encoding.invalid');
  }
}

/** body-parser's strict JSON: an object or an array, nothing else at the top level; an empty body is {}. */
function parseJson(req: FastifyRequest, body: Buffer): unknown {
  if (!['utf-8', 'utf8'].includes(charsetOf(req) ?? 'utf-8')) throw bodyError(415, 'charset.unsupported');
  if (!body.length) return {};
  const text = UTF8.decode(body);
  const start = FIRST_CHAR.exec(text)?.[1];
  if (start !== '{' && start !== '[') throw bodyError(400, 'entity.parse.failed');
  try {
    return JSON.parse(text);
  } catch {
    throw bodyError(400, 'entity.parse.failed');
  }
}

function parseHtmlForm(req: FastifyRequest, body: Buffer): unknown {
  const charset = charsetOf(req) ?? 'utf-8';
  const latin1 = charset === 'iso-8859-1' || charset === 'latin1';
  if (!latin1 && charset !== 'utf-8' && charset !== 'utf8') throw bodyError(415, 'charset.unsupported');
  const text = body.toString(latin1 ? 'latin1' : 'utf8');
  if (text.split('&').length > MAX_FORM_FIELDS) throw bodyError(413, 'parameters.too.many');
  return { ...parseForm(text, '&', '=', latin1 ? { decodeURIComponent: decodeLatin1 } : undefined) };
}

function charsetOf(req: FastifyRequest): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
}

function decodeLatin1(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function bodyError(status: number, type: string): Error {
  return Object.assign(new Error('Request body refused'), { status, statusCode: status, type });
}
