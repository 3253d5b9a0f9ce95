import type { ExecutionContext } from '@nestjs/common';
import type { ThrottlerOptions } from '@nestjs/throttler';
import type { FastifyRequest as Request } from 'fastify';
import type { ApprovalEnv } from '../approval-env';

const MINUTE_MS = 60_000;
export const CALLBACK_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What a request would decide: the callback's callbackId, or the approval id that begins a decision
 * page's token (`<approvalId>.<keyId>.<mac>`).
 */
function subjectOf(req: Request): unknown {
  const token = (req.params as { token?: unknown } | undefined)?.token;
  if (typeof token === 'string') return token.split('.')[0];
  return (req.body as { callbackId?: unknown } | undefined)?.callbackId;
}

/** Whether the request names an id of the shape we issue (a UUID): only those are counted. */
export function hasCallbackIdShape(context: ExecutionContext): boolean {
  const subject = subjectOf(context.switchToHttp().getRequest<Request>());
  return typeof subject === 'string' && CALLBACK_ID_SHAPE.test(subject);
}

/**
 * Two counts per callback or decision page, in Redis: per client address (`req.ip`, after TRUST_PROXY),
 * and per approval it would decide, so callers spread over many addresses still cannot hammer one approval.
 */
export function callbackThrottlers(env: ApprovalEnv): ThrottlerOptions[] {
  return [
    // "default" keeps the plain Retry-After and X-RateLimit-* header names.
    { name: 'default', ttl: MINUTE_MS, limit: env.CALLBACK_RATE_LIMIT_PER_MINUTE },
    {
      name: 'callback',
      ttl: MINUTE_MS,
      limit: env.CALLBACK_RATE_LIMIT_PER_CALLBACK_PER_MINUTE,
      getTracker: (req) => String(subjectOf(req as Request)).toLowerCase(),
    },
  ];
}
