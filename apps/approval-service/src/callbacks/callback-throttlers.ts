import type { ExecutionContext } from '@nestjs/common';
import type { ThrottlerOptions } from '@nestjs/throttler';
import type { FastifyRequest as Request } from 'fastify';
import { sha256Hex } from '@app/crypto';
import type { ApprovalEnv } from '../approval-env';

const MINUTE_MS = 60_000;
export const CALLBACK_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What a request would decide and the credential it decides with: the callback's callbackId and
 * callbackToken, or a decision page's approval id and its whole token (`<approvalId>.<keyId>.<mac>`).
 */
function credentialOf(req: Request): [subject: unknown, secret: unknown] {
  const token = (req.params as { token?: unknown } | undefined)?.token;
  if (typeof token === 'string') return [token.split('.')[0], token];
  const body = req.body as { callbackId?: unknown; callbackToken?: unknown } | undefined;
  return [body?.callbackId, body?.callbackToken];
}

/** Whether the request names an id of the shape we issue (a UUID): only those are counted. */
export function hasCallbackIdShape(context: ExecutionContext): boolean {
  const [subject] = credentialOf(context.switchToHttp().getRequest<Request>());
  return typeof subject === 'string' && CALLBACK_ID_SHAPE.test(subject);
}

/**
 * Two counts per callback or decision page, in Redis: per client address (`req.ip`, after TRUST_PROXY),
 * and per credential it would decide with, so callers spread over many addresses still cannot hammer one
 * approval. The second is keyed on the token's hash as well as the id: ids are no secret (logs,
 * `webhook-id`), and a wrong token must not spend the right one's share.
 */
export function callbackThrottlers(env: ApprovalEnv): ThrottlerOptions[] {
  return [
    // "default" keeps the plain Retry-After and X-RateLimit-* header names.
    { name: 'default', ttl: MINUTE_MS, limit: env.CALLBACK_RATE_LIMIT_PER_MINUTE },
    {
      name: 'callback',
      ttl: MINUTE_MS,
      limit: env.CALLBACK_RATE_LIMIT_PER_CALLBACK_PER_MINUTE,
      getTracker: (req) => {
        const [subject, secret] = credentialOf(req as Request);
        // A token that is no string is refused by validation after this guard: never turned into one here (a
        // body's arrays nested thousands deep would overflow the stack), all such counted under one key.
        return `${String(subject).toLowerCase()}:${typeof secret === 'string' ? sha256Hex(secret) : 'not-a-string'}`;
      },
    },
  ];
}
