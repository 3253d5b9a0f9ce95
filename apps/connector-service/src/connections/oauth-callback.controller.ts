import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import { ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { DomainException } from '@app/errors';
import { OAUTH_CALLBACK_PATH } from '../providers/oauth-callback-url';
import { AuthorizationService } from './authorization.service';
import { BrowserBinding } from './browser-binding';
import { callbackPage, CallbackOutcome } from './callback-page';
import { connectionResponse } from './dto/connection.response';

/**
 * The redirect URI. No bearer token: the state binds tenant, user and provider, and the cookie set when
 * it was issued binds it to this browser. Answers the popup's closing page, or JSON for
 * `Accept: application/json`; errors keep the contract's body either way.
 */
@ApiTags('OAuth connections')
@Controller()
export class OAuthCallbackController {
  private readonly openerOrigin: string;

  constructor(
    private readonly authorization: AuthorizationService,
    private readonly binding: BrowserBinding,
    env: ConnectorEnv,
  ) {
    this.openerOrigin = new URL(env.PUBLIC_BASE_URL).origin;
  }

  @Public()
  @Get(OAUTH_CALLBACK_PATH.slice(1))
  @ApiExcludeEndpoint()
  async callback(@Query() query: Record<string, string>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const wantsJson = req.accepts(['html', 'json']) === 'json';
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    const params = flatten(query);
    // Used or refused, the state is spent: its cookie has nothing more to do.
    this.binding.clear(res, params.state);
    try {
      const connection = await this.authorization.complete(params, this.binding.presented(req, params.state));
      if (wantsJson) return void res.status(200).json(connectionResponse(connection));
      this.page(res, 200, params.state, {
        ok: true,
        connectionId: connection.id,
        providerId: connection.providerId,
        message: 'The document system is connected.',
      });
    } catch (error) {
      if (wantsJson || !(error instanceof DomainException)) throw error;
      const resolution = (error.details[0] as { resolution?: string } | undefined)?.resolution;
      this.page(res, error.statusCode, params.state, {
        ok: false,
        code: error.code,
        message: error.message,
        resolution,
      });
    }
  }

  /** The state names the console tab that started this authorization (callback-page.ts). */
  private page(res: Response, status: number, state: string | undefined, outcome: CallbackOutcome): void {
    const { html, csp } = callbackPage(outcome, this.openerOrigin, state);
    res.status(status).setHeader('Content-Security-Policy', csp).type('html').send(html);
  }
}

/** Repeated parameters are not ours to guess at: the first one counts. */
function flatten(query: Record<string, unknown>): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(query))
    flat[key] =
      typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
  return flat;
}
