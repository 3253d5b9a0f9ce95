import { MigrationInterface, QueryRunner } from 'typeorm';

/** OAuth providers with versioned client secrets, pending authorizations, and per-user connections. */
export class OAuth1795300010000 implements MigrationInterface {
  name = 'OAuth1795300010000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE connector.oauth_providers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "tenantId" text NOT NULL,
        name text NOT NULL,
        provider text NOT NULL CHECK (provider = 'GenericOAuth'),
        "authenticationType" text NOT NULL CHECK ("authenticationType" = 'StaticUserOauth'),
        "clientId" text NOT NULL,
        "authorizationEndpoint" text NOT NULL,
        "tokenEndpoint" text NOT NULL,
        "revokeEndpoint" text NOT NULL DEFAULT '',
        "supportedScopes" text[] NOT NULL,
        "tokenEndpointAuthMethod" text NOT NULL CHECK ("tokenEndpointAuthMethod" IN ('CLIENT_SECRET_POST', 'CLIENT_SECRET_BASIC')),
        "secretVersion" int NOT NULL DEFAULT 1,
        "createdBy" text NOT NULL,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        "updatedAt" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX oauth_providers_tenant ON connector.oauth_providers ("tenantId", "createdAt")`);

    // One row per secret version; old versions stay while a connection was issued under them.
    await q.query(`
      CREATE TABLE connector.oauth_provider_secrets (
        "providerId" uuid NOT NULL REFERENCES connector.oauth_providers(id) ON DELETE CASCADE,
        version int NOT NULL,
        "secretEncrypted" text NOT NULL,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("providerId", version)
      )`);

    await q.query(`
      CREATE TABLE connector.oauth_authorization_requests (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "stateHash" text NOT NULL UNIQUE,
        "tenantId" text NOT NULL,
        "userId" text NOT NULL,
        "providerId" uuid NOT NULL REFERENCES connector.oauth_providers(id) ON DELETE CASCADE,
        "codeVerifierEncrypted" text NOT NULL,
        "nonceHash" text NOT NULL,
        "redirectUri" text NOT NULL,
        scopes text[] NOT NULL,
        "expiresAt" timestamptz NOT NULL,
        "consumedAt" timestamptz,
        "createdAt" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX oauth_authorization_requests_expiry ON connector.oauth_authorization_requests ("expiresAt")`,
    );

    await q.query(`
      CREATE TABLE connector.oauth_connections (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        "tenantId" text NOT NULL,
        "userId" text NOT NULL,
        "providerId" uuid NOT NULL REFERENCES connector.oauth_providers(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('Active', 'NeedsReauth')),
        subject text,
        scopes text[] NOT NULL,
        "accessTokenEncrypted" text NOT NULL,
        "refreshTokenEncrypted" text,
        "expiresAt" timestamptz,
        "tokensIssuedAt" timestamptz NOT NULL,
        "secretVersion" int NOT NULL,
        "lastRefreshError" text,
        "createdAt" timestamptz NOT NULL DEFAULT now(),
        "updatedAt" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX oauth_connections_owner ON connector.oauth_connections ("tenantId", "userId", "createdAt")`,
    );
    await q.query(
      `CREATE INDEX oauth_connections_provider ON connector.oauth_connections ("providerId", "secretVersion")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE connector.oauth_connections');
    await q.query('DROP TABLE connector.oauth_authorization_requests');
    await q.query('DROP TABLE connector.oauth_provider_secrets');
    await q.query('DROP TABLE connector.oauth_providers');
  }
}
