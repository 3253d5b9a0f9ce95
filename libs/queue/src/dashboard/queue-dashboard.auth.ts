import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { decodeJwt } from 'jose';
import { ADMIN_ROLE, TokenVerifier } from '@app/auth';
import { BaseEnv } from '@app/config';
import { DomainException, toErrorBody } from '@app/errors';
import { sendLoginPage } from './queue-dashboard.login-page';
import { QUEUE_DASHBOARD_ROUTE } from './queue-dashboard.route';

export const DASHBOARD_COOKIE = 'queue_dashboard_token';
/** The cookie lives at most this long, and never past the token's own expiry. */
const COOKIE_MAX_AGE_S = 3600;
const LOGIN = `${QUEUE_DASHBOARD_ROUTE}/login`;
const LOGOUT = `${QUEUE_DASHBOARD_ROUTE}/logout`;

/**
 * The queue dashboard shows every tenant's jobs, so it is for the platform operators: a token with role
 * `admin` of the tenant QUEUE_DASHBOARD_TENANT names (nobody when unset), as a bearer header or, since a
 * browser sends no header when it navigates, as the HttpOnly, SameSite=Strict cookie that POST
 * /admin/queues/login sets (the token in a form body, never in a URL that logs and history keep).
 */
@Injectable()
export class QueueDashboardAuth implements NestMiddleware {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly env: BaseEnv,
  ) {}

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    res.locals.metricsRoute = `${QUEUE_DASHBOARD_ROUTE}/*`;
    const path = new URL(req.originalUrl, 'http://x').pathname.replace(/\/+$/, '');
    if (path === LOGIN) return req.method === 'POST' ? this.login(req, res) : void sendLoginPage(res, LOGIN);
    if (path === LOGOUT) return void res.setHeader('Set-Cookie', cookie(req, '', 0)).redirect(303, LOGIN);
    const token = bearer(req) ?? cookieValue(req, DASHBOARD_COOKIE);
    const refusal = await this.refusal(token);
    if (refusal) return void res.status(refusal.statusCode).json(toErrorBody(refusal));
    next();
  }

  private async login(req: Request, res: Response): Promise<void> {
    const token = typeof req.body?.token === 'string' ? req.body.token.trim() : undefined;
    const refusal = await this.refusal(token);
    if (refusal) return void res.status(refusal.statusCode).json(toErrorBody(refusal));
    const secondsLeft = Math.floor((decodeJwt(token!).exp ?? 0) - Date.now() / 1000);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Set-Cookie', cookie(req, token!, Math.min(COOKIE_MAX_AGE_S, secondsLeft)));
    res.redirect(303, QUEUE_DASHBOARD_ROUTE);
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

function bearer(req: Request): string | undefined {
  return req.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
}

function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name && value.length) return value.join('=');
  }
  return undefined;
}

function cookie(req: Request, value: string, maxAgeSeconds: number): string {
  return `${DASHBOARD_COOKIE}=${value}; Path=${QUEUE_DASHBOARD_ROUTE}; Max-Age=${Math.max(0, maxAgeSeconds)}; HttpOnly; SameSite=Strict${req.secure ? '; Secure' : ''}`;
}
