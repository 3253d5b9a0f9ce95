import { HttpException, HttpStatus } from '@nestjs/common';
import { DomainException } from './domain.exception';

export interface ErrorBody {
  statusCode: number;
  error: string;
  code: string;
  message: string;
  details: unknown[];
  [extra: string]: unknown;
}

const CODES_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

function reason(status: number): string {
  const name = HttpStatus[status];
  if (!name) return 'Error';
  return name
    .split('_')
    .map((w) => w.charAt(0) + w.slice(1).toLowerCase())
    .join(' ');
}

export function bodyFor(status: number, code: string, message: string, details: unknown[] = []): ErrorBody {
  return { statusCode: status, error: reason(status), code, message, details };
}

interface BodyParserError {
  type?: string;
  status?: number;
  statusCode?: number;
}

/** Fastify's own refusals of a request (body too large, a malformed Content-Length, ...): `FST_ERR_*` codes. */
interface FastifyError {
  code?: unknown;
  statusCode?: number;
}

/** Maps anything thrown to the contract's body; null means "unexpected" (a 500 the caller must log). */
export function toErrorBody(exception: unknown): ErrorBody | null {
  if (exception instanceof DomainException) {
    return {
      ...bodyFor(exception.statusCode, exception.code, exception.message, exception.details),
      ...exception.extra,
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    const message =
      typeof response === 'object' && response !== null && 'message' in response
        ? [(response as { message: unknown }).message].flat().join('; ')
        : exception.message;
    return bodyFor(status, CODES_BY_STATUS[status] ?? `HTTP_${status}`, message);
  }
  const parserError = exception as BodyParserError;
  if (parserError && typeof parserError.type === 'string') return bodyParserBody(parserError);
  const fastifyError = exception as FastifyError;
  if (typeof fastifyError?.code === 'string' && fastifyError.code.startsWith('FST_ERR'))
    return fastifyBody(fastifyError);
  return null;
}

function fastifyBody(error: FastifyError): ErrorBody | null {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return bodyParserBody({ type: 'entity.too.large' });
  const status = error.statusCode;
  return status && status >= 400 && status < 500
    ? bodyFor(status, CODES_BY_STATUS[status] ?? 'BAD_REQUEST', 'Bad request')
    : null;
}

function bodyParserBody(error: BodyParserError): ErrorBody | null {
  switch (error.type) {
    case 'entity.too.large':
      return bodyFor(413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than 1 MiB');
    case 'entity.parse.failed':
      return bodyFor(400, 'MALFORMED_JSON', 'Request body is not valid JSON');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return bodyFor(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported request encoding');
    default: {
      const status = error.status ?? error.statusCode;
      return status && status >= 400 && status < 500
        ? bodyFor(status, CODES_BY_STATUS[status] ?? 'BAD_REQUEST', 'Bad request')
        : null;
    }
  }
}
