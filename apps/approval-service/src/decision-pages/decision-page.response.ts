import type { FastifyReply } from 'fastify';

/**
 * Every answer of the decision page, errors included: no script, no framing, no referrer (the link is the
 * credential), never cached, never indexed.
 */
export const DECISION_PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Robots-Tag': 'noindex, nofollow',
} as const;

export function sendPage(reply: FastifyReply, statusCode: number, html: string): void {
  void reply.status(statusCode).headers(DECISION_PAGE_HEADERS).send(html);
}
