import { Injectable, NestMiddleware } from '@nestjs/common';
import { decodeJwt } from 'jose';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseForm } from 'node:querystring';
import type { TLSSocket } from 'node:tls';
import { ADMIN_ROLE, TokenVerifier } from '@app/auth';
import { BaseEnv, parseTrustProxy } from '@app/config';
import { DomainException, toErrorBody } from '@app/errors';
import { sendLoginPage } from './queue-dashboard.login-page';
import { QUEUE_DASHBOARD_ROUTE } from './queue-dashboard.route';

export const DASHBOARD_COOKIE = 'queue_dashboard_token';
/** The cookie lives at most this long, and never past the token's own expiry. */
const COOKIE_MAX_AGE_S = 3600;
const LOGIN = `${QUEUE_DASHBOARD_ROUTE}/login`;
const LOGOUT = `${QUEUE_DASHBOARD_ROUTE}/logout`;
/** The sign-in form holds one token: anything longer is not one. */
const MAX_FORM_BYTES = 16_384;

/**
 * Node's request and response, as Express and Fastify both hand them to a middleware (Express adds the
 * parsed form and `secure`; under Fastify the middleware runs before any body is read).
 */
type DashboardRequest = IncomingMessage & { originalUrl?: string; body?: { token?: unknown }; secure?: boolean };
type DashboardResponse = ServerResponse & { locals?: Record<string, unknown> };
type Next = (error?: unknown) => void;

/**
 * The queue dashboard shows every tenant's jobs, so it is for the platform operators: a token with role
 * `admin` of the tenant QUEUE_DASHBOARD_TENANT names (nobody when unset), as a bearer header or, since a
 * browser sends no header when it navigates, as the HttpOnly, SameSite=Strict cookie that POST
 * /admin/queues/login sets (the token in a form body, never in a URL that logs and history keep).
 * It answers on Node's own response, so it serves the Express and the Fastify apps alike.
 */
@Injectable()
export class QueueDashboardAuth implements NestMiddleware {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly env: BaseEnv,
  ) {}

  async use(req: DashboardRequest, res: DashboardResponse, next: Next): Promise<void> {
    res.locals = { ...res.locals, metricsRoute: `${QUEUE_DASHBOARD_ROUTE}/*` };
    const path = new URL(req.originalUrl ?? req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '');
    if (path === LOGIN) return req.method === 'POST' ? this.login(req, res) : sendLoginPage(res, LOGIN);
    if (path === LOGOUT) {
      res.setHeader('Set-Cookie', cookie(this.isSecure(req), '', 0));
      return redirect(res, LOGIN);
    }
    const token = bearer(req) ?? cookieValue(req, DASHBOARD_COOKIE);
    const refusal = await this.refusal(token);
    if (refusal) return sendError(res, refusal);
    next();
  }

  private async login(req: DashboardRequest, res: DashboardResponse): Promise<void> {
    const form = req.body ?? (await readForm(req));
    if (form instanceof SignInRefused) return sendError(res, form.error);
    const token = typeof form.token === 'string' ? form.token.trim() : undefined;
    const refusal = await this.refusal(token);
    if (refusal) return sendError(res, refusal);
    const secondsLeft = Math.floor((decodeJwt(token!).exp ?? 0) - Date.now() / 1000);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Set-Cookie', cookie(this.isSecure(req), token!, Math.min(COOKIE_MAX_AGE_S, secondsLeft)));
    redirect(res, QUEUE_DASHBOARD_ROUTE);
  }

  /** Express says (after TRUST_PROXY); under Fastify: TLS here, or a trusted proxy's X-Forwarded-Proto. */
  private isSecure(req: DashboardRequest): boolean {
    if (typeof req.secure === 'boolean') return req.secure;
    if ((req.socket as TLSSocket).encrypted) return true;
    const forwarded = String(req.headers['x-forwarded-proto'] ?? '')
      .split(',')[0]
      .trim();
    return Boolean(parseTrustProxy(this.env.TRUST_PROXY)) && forwarded === 'https';
  }

  private async refusal(token: string | undefined): Promise<DomainException | null> {
    const principal = token ? await this.verifier.verify(token) : null;
    if (!principal)
      return new DomainException(
        401,
        'UNAUTHENTICATED',
        `A valid admin token is required (a bearer header, or sign in at ${LOGIN})`,
      );
    if (!principal.roles.includes(ADMIN_ROLE))
      return new DomainException(403, 'FORBIDDEN', `This action needs one of the roles: ${ADMIN_ROLE}`);
    if (!this.env.QUEUE_DASHBOARD_TENANT || principal.tenantId !== this.env.QUEUE_DASHBOARD_TENANT)
      return new DomainException(
        403,
        'FORBIDDEN',
        "The queue dashboard shows every tenant's jobs: it is for the admins of the operators' tenant (QUEUE_DASHBOARD_TENANT)",
      );
    return null;
  }
}

/** A refusal: a DomainException, or a body parser's error (the contract's body either way). */
function sendError(res: ServerResponse, refusal: unknown): void {
  const body = toErrorBody(refusal)!;
  res.statusCode = body.statusCode;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

function redirect(res: ServerResponse, location: string): void {
  res.statusCode = 303;
  res.setHeader('Location', location);
  res.end();
}

/** A sign-in body refused before its token is looked at. */
class SignInRefused {
  constructor(readonly error: unknown) {}
}

/**
 * The sign-in form (or JSON) from the request itself, when no parser read it; refused when it is too large
 * or its JSON does not parse (with body-parser's error, as Express's parser answers).
 */
async function readForm(req: IncomingMessage): Promise<{ token?: unknown } | SignInRefused> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES)
      return new SignInRefused(new DomainException(413, 'PAYLOAD_TOO_LARGE', 'The sign-in form is too large'));
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return { ...parseForm(text) };
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null ? (body as { token?: unknown }) : {};
  } catch {
    return new SignInRefused({ type: 'entity.parse.failed' });
  }
}

function bearer(req: IncomingMessage): string | undefined {
  return req.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
}

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name && value.length) return value.join('=');
  }
  return undefined;
}

function cookie(secure: boolean, value: string, maxAgeSeconds: number): string {
  return `${DASHBOARD_COOKIE}=${value}; Path=${QUEUE_DASHBOARD_ROUTE}; Max-Age=${Math.max(0, maxAgeSeconds)}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
