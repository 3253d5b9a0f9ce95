import type { NextFunction, Request, Response } from 'express';

/**
 * A body of a type no parser reads (text/plain, none given): refused with 415, never taken as no body, or a
 * PATCH sent as `fetch`'s default text/plain would answer 200 having changed nothing.
 */
export function unreadBodyError(): Error {
  return Object.assign(new Error('Request body refused'), {
    status: 415,
    statusCode: 415,
    type: 'content-type.unsupported',
  });
}

/** Express: after the parsers, a body they left unread (an empty one of any type is no body). */
export function refuseUnreadBody(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = Number(req.headers['content-length']) > 0 || req.headers['transfer-encoding'] !== undefined;
  next(req.body === undefined && hasBody ? unreadBodyError() : undefined);
}
