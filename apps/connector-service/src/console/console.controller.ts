import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public, signPlatformToken } from '@app/auth';
import type { ConsoleConfigView, DevTokenView } from '@app/contracts/views';
import { AnyQueryParameters, DomainException } from '@app/errors';
import { OAuthCallbackUrl } from '../providers/oauth-callback-url';
import { ConsoleFiles } from './console-files';
import { DevTokenDto } from './dev-token.dto';

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;
/** A Host header that names this machine: a DNS-rebinding page names its own domain, whatever it resolves to. */
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d{1,5})?$/i;

/**
 * The console is a static single-page app that talks to the public API only; this controller serves
 * its files (client routes fall back to index.html), its configuration and, in development, tokens.
 */
@Public()
@AnyQueryParameters()
@ApiExcludeController()
@Controller('console')
export class ConsoleController {
  private readonly devLogin: boolean;
  private readonly secret: string;
  private readonly audience: { issuer?: string; audience?: string };
  private readonly settings: ConsoleConfigView;

  constructor(
    private readonly files: ConsoleFiles,
    env: ConnectorEnv,
    callbackUrl: OAuthCallbackUrl,
  ) {
    this.devLogin = env.CONSOLE_DEV_LOGIN;
    this.secret = env.AUTH_JWT_SECRET;
    this.audience = {
      issuer: env.AUTH_JWT_ISSUER,
      audience: env.AUTH_JWT_AUDIENCE,
    };
    this.settings = {
      approvalServiceUrl: env.APPROVAL_SERVICE_URL.replace(/\/+$/, ''),
      devLogin: this.devLogin,
      redirectUri: callbackUrl.value,
    };
  }

  @Get('config.json')
  config(@Res({ passthrough: true }) res: Response): ConsoleConfigView {
    res.setHeader('Cache-Control', 'no-store');
    return this.settings;
  }

  /**
   * Development sign-in (CONSOLE_DEV_LOGIN=true only): a 12-hour platform token for any tenant, user and
   * roles. Only for callers on this machine, by the socket and by the Host header (a page of another
   * site that rebinds its name to 127.0.0.1 reaches the socket, but names its own host).
   */
  @Post('dev-token')
  @HttpCode(200)
  async devToken(@Body() body: DevTokenDto, @Req() req: Request): Promise<DevTokenView> {
    if (!this.devLogin)
      throw new DomainException(404, 'NOT_FOUND', 'Development sign-in is off (CONSOLE_DEV_LOGIN is not true)');
    if (!LOOPBACK.test(req.socket.remoteAddress ?? '') || !LOOPBACK_HOST.test(req.headers.host ?? ''))
      throw new DomainException(404, 'NOT_FOUND', 'Development sign-in answers callers on this machine only');
    return {
      token: await signPlatformToken(
        this.secret,
        { tenantId: body.tenantId, userId: body.userId, roles: body.roles, name: body.name?.trim() || undefined },
        '12h',
        this.audience,
      ),
    };
  }

  @Get()
  index(@Res() res: Response): void {
    this.files.send(res, []);
  }

  @Get('*path')
  file(@Param('path') path: string[] | string, @Res() res: Response): void {
    this.files.send(res, [path].flat());
  }
}
