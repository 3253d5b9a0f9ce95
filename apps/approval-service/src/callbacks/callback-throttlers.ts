import type { ExecutionContext } from '@nestjs/common';
import type { ThrottlerOptions } from '@nestjs/throttler';
import type { Request } from 'express';
import type { ApprovalEnv } from '../approval-env';

const MINUTE_MS = 60_000;
export const CALLBACK_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const callbackIdOf = (req: Request): unknown => (req.body as { callbackId?: unknown } | undefined)?.callbackId;

/** Whether the callback names a callbackId of the shape we issue (a UUID): only those are counted. */
export function hasCallbackIdShape(context: ExecutionContext): boolean {
  const callbackId = callbackIdOf(context.switchToHttp().getRequest<Request>());
  return typeof callbackId === 'string' && CALLBACK_ID_SHAPE.test(callbackId);
}

/**
 * Two counts per callback, in Redis: per client address (`req.ip`, after TRUST_PROXY), and per
 * callbackId, so callers spread over many addresses still cannot hammer one approval.
 */
export function callbackThrottlers(env: ApprovalEnv): ThrottlerOptions[] {
  return [
    // "default" keeps the plain Retry-After and X-RateLimit-* header names.
    { name: 'default', ttl: MINUTE_MS, limit: env.CALLBACK_RATE_LIMIT_PER_MINUTE },
    {
      name: 'callback',
      ttl: MINUTE_MS,
      limit: env.CALLBACK_RATE_LIMIT_PER_CALLBACK_PER_MINUTE,
      getTracker: (req) => String(callbackIdOf(req as Request)).toLowerCase(),
    },
  ];
}
