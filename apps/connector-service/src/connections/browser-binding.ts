import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ConnectorEnv } from '../connector-env';
import { OAuthCallbackUrl } from '../providers/oauth-callback-url';
import { randomToken, sha256Hex } from './pkce';

/**
 * Ties a started authorization to the browser that started it: `POST /v2/OAuth/authorize` sets a cookie
 * only the callback path receives, and the callback needs it. A link forwarded to someone else then
 * connects nobody's account to the sender's. One cookie per state, so two authorizations may run at once.
 */
@Injectable()
export class BrowserBinding {
  private readonly secure: boolean;
  private readonly path: string;

  constructor(env: ConnectorEnv, callbackUrl: OAuthCallbackUrl) {
    this.secure = !env.ALLOW_INSECURE_URLS;
    this.path = new URL(callbackUrl.value).pathname;
  }

  /** A new cookie value; the authorization keeps only its hash. */
  issue(): { value: string; hash: string } {
    const value = randomToken();
    return { value, hash: sha256Hex(value) };
  }

  set(res: Response, state: string, value: string, expiresAt: Date): void {
    res.cookie(cookieName(state), value, {
      httpOnly: true,
      secure: this.secure,
      sameSite: 'lax',
      path: this.path,
      maxAge: Math.max(0, expiresAt.getTime() - Date.now()),
    });
  }

  /** The hash of the cookie this request carries for `state`, or null without one. */
  presented(req: Request, state: string | undefined): string | null {
    if (!state) return null;
    const value = cookiesOf(req).get(cookieName(state));
    return value ? sha256Hex(value) : null;
  }

  clear(res: Response, state: string | undefined): void {
    if (state)
      res.clearCookie(cookieName(state), { httpOnly: true, secure: this.secure, sameSite: 'lax', path: this.path });
  }
}

/** Named after the state's hash: the state itself is in the URL, and the name tells it from others. */
const cookieName = (state: string) => `oauth_${sha256Hex(state).slice(0, 16)}`;

function cookiesOf(req: Request): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return cookies;
}
