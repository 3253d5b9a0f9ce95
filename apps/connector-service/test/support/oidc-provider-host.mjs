/**
 * A certified OpenID Connect provider (panva's oidc-provider) on a loopback port, for interoperability
 * tests. It is ESM-only, so it runs here in a child process. Configuration comes as JSON in OIDC_HOST:
 * {clientId, clientSecret, redirectUri, tokenEndpointAuthMethod, accessTokenTtlSeconds, accountId}.
 * Sign-in and consent are granted at once for `accountId` (the test plays the user). Prints
 * `ready <issuer>` on stdout when it listens.
 */
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.env.OIDC_HOST ?? '{}');

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: config.clientId,
      client_secret: config.clientSecret,
      redirect_uris: [config.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: config.tokenEndpointAuthMethod,
    },
  ],
  scopes: ['openid', 'offline_access'],
  pkce: { required: () => true },
  ttl: { AccessToken: config.accessTokenTtlSeconds ?? 3600 },
  rotateRefreshToken: true,
  features: { devInteractions: { enabled: false }, revocation: { enabled: true } },
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  cookies: { keys: ['interop-test-cookie-key'] },
});

const providerCallback = provider.callback();

server.on('request', async (req, res) => {
  if (!req.url.startsWith('/interaction/')) return providerCallback(req, res);
  try {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      return await provider.interactionFinished(
        req,
        res,
        { login: { accountId: config.accountId } },
        { mergeWithLastSubmission: false },
      );
    }
    const grant = new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    const missing = details.prompt.details.missingOIDCScope ?? [];
    if (missing.length) grant.addOIDCScope(missing.join(' '));
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: true },
    );
  } catch (error) {
    res.statusCode = 500;
    res.end(String(error));
  }
});

process.stdout.write(`ready ${issuer}\n`);
