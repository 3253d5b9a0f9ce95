import { Body, Controller, Get, Header, Headers, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { SignJWT } from 'jose';
import { SimulatorEnv } from '../simulator-env';
import { SimulatorStore } from '../store/simulator-store';
import { OAuthClient, OAuthState, s256, sha256 } from './oauth-clients';
import { loginPage } from './login-page';

type Params = Record<string, string | undefined>;

/**
 * The document system's OAuth host: authorization code flow with PKCE (S256), refresh tokens that
 * rotate, client_secret_post / client_secret_basic, and OpenID discovery. RFC 6749 / 7636 errors.
 */
@ApiExcludeController()
@Controller()
export class OAuthController {
  constructor(
    private readonly state: OAuthState,
    private readonly store: SimulatorStore,
    private readonly env: SimulatorEnv,
  ) {}

  @Get('.well-known/openid-configuration')
  discovery() {
    const issuer = this.env.PUBLIC_BASE_URL;
    return {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['openid', 'offline_access'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['HS256'],
    };
  }

  @Get('oauth/authorize')
  authorize(@Query() query: Params, @Res() res: Response) {
    const checked = this.check(query, res);
    if (!checked) return;
    if (this.state.autoApproveUser) return this.approve(res, query, checked.scope, this.state.autoApproveUser);
    res.type('html').send(loginPage(query));
  }

  @Post('oauth/authorize')
  @HttpCode(200)
  login(@Body() body: Params, @Res() res: Response) {
    const checked = this.check(body, res);
    if (!checked) return;
    if (body.decision === 'deny')
      return redirect(res, body.redirect_uri!, { error: 'access_denied', state: body.state });
    const user = this.store.users.get(body.username ?? '');
    if (!user || user.password !== body.password)
      return res.status(200).type('html').send(loginPage(body, 'Wrong username or password.'));
    this.approve(res, body, checked.scope, user.username);
  }

  @Post('oauth/token')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  async token(@Body() body: Params, @Headers('authorization') authorization: string | undefined, @Res() res: Response) {
    this.state.tokenCalls[body.grant_type ?? 'unknown'] =
      (this.state.tokenCalls[body.grant_type ?? 'unknown'] ?? 0) + 1;
    const client = this.authenticate(body, authorization);
    if (!client)
      return res
        .status(401)
        .setHeader('WWW-Authenticate', 'Basic realm="oauth"')
        .json({ error: 'invalid_client', error_description: 'Client authentication failed' });
    if (body.grant_type === 'authorization_code') {
      const grant = body.code ? this.state.takeCode(body.code) : null;
      if (!grant || grant.clientId !== client.clientId)
        return res.status(400).json({ error: 'invalid_grant', error_description: 'Unknown, used or expired code' });
      if (grant.redirectUri !== body.redirect_uri)
        return res.status(400).json({ error: 'invalid_grant', error_description: 'redirect_uri mismatch' });
      if (grant.codeChallenge && (!body.code_verifier || s256(body.code_verifier) !== grant.codeChallenge)) {
        return res.status(400).json({ error: 'invalid_grant', error_description: 'PKCE verification failed' });
      }
      return res.json(
        await this.tokens(
          client,
          grant.subject,
          grant.scope,
          body.client_secret ?? basicSecret(authorization),
          grant.nonce,
        ),
      );
    }
    if (body.grant_type === 'refresh_token') {
      const bound = body.refresh_token ? this.state.peekRefreshToken(body.refresh_token) : null;
      if (
        bound &&
        client.refreshTokensBoundToSecret &&
        bound.secretHash !== sha256(body.client_secret ?? basicSecret(authorization))
      ) {
        return res.status(401).json({
          error: 'invalid_client',
          error_description: 'The refresh token was issued to another client secret',
        });
      }
      const grant = body.refresh_token ? this.state.takeRefreshToken(body.refresh_token) : null;
      if (!grant || grant.clientId !== client.clientId)
        return res
          .status(400)
          .json({ error: 'invalid_grant', error_description: 'Unknown or already used refresh token' });
      return res.json(
        await this.tokens(client, grant.subject, grant.scope, body.client_secret ?? basicSecret(authorization)),
      );
    }
    return res.status(400).json({ error: 'unsupported_grant_type' });
  }

  /** Client and redirect URI first (never redirect to an unknown URI), then the rest as redirected errors. */
  private check(params: Params, res: Response): { scope: string[] } | null {
    const client = this.state.clients.get(params.client_id ?? '');
    if (!client) {
      res.status(400).type('html').send('<h1>invalid client</h1><p>Unknown client_id.</p>');
      return null;
    }
    if (!params.redirect_uri || !client.redirectUris.includes(params.redirect_uri)) {
      res
        .status(400)
        .type('html')
        .send('<h1>redirect_uri mismatch</h1><p>The redirect URI is not registered for this client.</p>');
      return null;
    }
    if (params.response_type !== 'code') {
      redirect(res, params.redirect_uri, { error: 'unsupported_response_type', state: params.state });
      return null;
    }
    const scope = (params.scope ?? '').split(' ').filter(Boolean);
    if (scope.some((s) => !client.scopes.includes(s))) {
      redirect(res, params.redirect_uri, {
        error: 'invalid_scope',
        error_description: 'The client may not request these scopes',
        state: params.state,
      });
      return null;
    }
    if (params.code_challenge && params.code_challenge_method !== 'S256') {
      redirect(res, params.redirect_uri, {
        error: 'invalid_request',
        error_description: 'Only S256 PKCE is supported',
        state: params.state,
      });
      return null;
    }
    return { scope };
  }

  private approve(res: Response, params: Params, scope: string[], subject: string): void {
    const code = this.state.issueCode({
      clientId: params.client_id!,
      redirectUri: params.redirect_uri!,
      scope,
      subject,
      codeChallenge: params.code_challenge ?? null,
      nonce: params.nonce ?? null,
    });
    redirect(res, params.redirect_uri!, { code, state: params.state, iss: this.env.PUBLIC_BASE_URL });
  }

  private authenticate(body: Params, authorization: string | undefined): OAuthClient | null {
    let clientId = body.client_id;
    let secret = body.client_secret;
    let method: 'client_secret_post' | 'client_secret_basic' = 'client_secret_post';
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      clientId = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
      method = 'client_secret_basic';
    }
    const client = this.state.clients.get(clientId ?? '');
    if (
      !client ||
      !secret ||
      !client.clientSecretHashes.includes(sha256(secret)) ||
      !client.tokenEndpointAuthMethods.includes(method)
    )
      return null;
    return client;
  }

  private async tokens(
    client: OAuthClient,
    subject: string,
    scope: string[],
    secret: string,
    nonce: string | null = null,
  ) {
    const accessToken = this.store.issueAccessToken(subject, client.accessTokenTtlSeconds);
    const response: Record<string, unknown> = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: client.accessTokenTtlSeconds,
      scope: scope.join(' '),
    };
    if (scope.includes('offline_access'))
      response.refresh_token = this.state.issueRefreshToken({
        clientId: client.clientId,
        scope,
        subject,
        secretHash: sha256(secret),
      });
    if (scope.includes('openid')) {
      response.id_token = await new SignJWT(nonce ? { nonce } : {})
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(this.env.PUBLIC_BASE_URL)
        .setSubject(subject)
        .setAudience(client.clientId)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(secret));
    }
    return response;
  }
}

function redirect(res: Response, uri: string, params: Record<string, string | undefined>): void {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  res.redirect(302, url.toString());
}

function basicSecret(authorization: string | undefined): string {
  if (!authorization?.startsWith('Basic ')) return '';
  const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
  return decodeURIComponent(decoded.slice(decoded.indexOf(':') + 1));
}
