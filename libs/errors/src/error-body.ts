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
  expose?: boolean;
}

/**
 * A body the parser refused. Its own refusals carry a `type`; a body that does not inflate (broken gzip or
 * deflate) reaches us as zlib's error, which body-parser marks only as the client's: an exposed 4xx.
 */
export function isBodyReadingError(error: unknown): error is BodyParserError {
  const candidate = error as BodyParserError | null | undefined;
  if (typeof candidate?.type === 'string') return true;
  const status = candidate?.status ?? candidate?.statusCode;
  return candidate?.expose === true && !!status && status >= 400 && status < 500;
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
    // Fastify's own 413 reaches us as an HttpException with its own words; the contract's are these.
    if (status === 413) return bodyParserBody({ type: 'entity.too.large' });
    return bodyFor(status, CODES_BY_STATUS[status] ?? `HTTP_${status}`, message);
  }
  return isBodyReadingError(exception) ? bodyParserBody(exception) : null;
}

function bodyParserBody(error: BodyParserError): ErrorBody | null {
  switch (error.type) {
    case 'entity.too.large':
      return bodyFor(413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than 1 MiB');
    case 'parameters.too.many':
      return bodyFor(413, 'PAYLOAD_TOO_LARGE', 'Request body has more than 1,000 form fields');
    case 'entity.parse.failed':
      return bodyFor(400, 'MALFORMED_JSON', 'Request body is not valid JSON');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return bodyFor(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported request encoding');
    case 'content-type.unsupported':
      return bodyFor(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json');
    default: {
      const status = error.status ?? error.statusCode;
      return status && status >= 400 && status < 500
        ? bodyFor(status, CODES_BY_STATUS[status] ?? 'BAD_REQUEST', 'Request body could not be read')
        : null;
    }
  }
}
