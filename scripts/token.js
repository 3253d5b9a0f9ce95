#!/usr/bin/env node
'use strict';
/**
 * Prints a development platform token (see USAGE). Signs with AUTH_JWT_SECRET, or the secret `npm start`
 * generated under .data/. The token always expires and carries AUTH_JWT_ISSUER / AUTH_JWT_AUDIENCE as
 * `iss` / `aud` when they are set.
 */
const { parseArgs } = require('node:util');
const { SignJWT } = require('jose');
const { devSecrets } = require('./dev-secrets');

/** The tenant and admin user of `npm start`'s demo (the console's development sign-in uses them too). */
const DEMO_TENANT = '00000000-0000-4000-8000-000000000001';
const DEMO_ADMIN = '00000000-0000-4000-8000-0000000000a1';
const DEMO_ADMIN_NAME = 'Demo admin';

const USAGE = `Usage: npm run token -- [--tenant <id>] [--user <id>] [--roles <role,role>] [--expires <time>]

Prints a platform token (HS256, signed with AUTH_JWT_SECRET or the secret npm start keeps in .data/).
Without options: an admin token for npm start's demo tenant, valid 12 hours.

  --tenant <id>     tenant claim            (default ${DEMO_TENANT}, the demo tenant)
  --user <id>       user id, the sub claim  (default ${DEMO_ADMIN}, the demo admin)
  --name <text>     the name claim, shown by the console (default Demo admin for the demo admin)
  --roles <list>    comma-separated roles   (default admin; e.g. agent-runtime, oauth-connectors:manage;
                    --roles '' for a token without roles)
  --expires <time>  lifetime: a number and a unit, s, m, h or d (90s, 30m, 12h, 1d; default 12h);
                    the services refuse a token that lives longer than their JWT_MAX_TTL (24 h unless set)
  -h, --help        this text

Only the token goes to standard output; with npm's --silent (-s), nothing else does:
  export TOKEN=$(npm run -s token -- --roles agent-runtime)
`;
/** What --expires takes: a number and a unit (jose's time spans, without "ago" and "from now"). */
const LIFETIME = /^\d+(\.\d+)? ?(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?)$/i;

const OPTIONS = {
  tenant: { type: 'string', default: DEMO_TENANT },
  user: { type: 'string', default: DEMO_ADMIN },
  name: { type: 'string' },
  roles: { type: 'string', default: 'admin' },
  expires: { type: 'string', default: '12h' },
  help: { type: 'boolean', short: 'h', default: false },
};

async function main() {
  let values;
  try {
    ({ values } = parseArgs({ options: OPTIONS }));
  } catch (error) {
    process.stderr.write(`${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) return process.stdout.write(USAGE);
  if (!LIFETIME.test(values.expires)) {
    process.stderr.write(
      `--expires takes a number and a unit, s, m, h or d, such as 90s, 30m, 12h or 1d (got "${values.expires}").\n`,
    );
    process.exit(2);
  }
  const secret = process.env.AUTH_JWT_SECRET ?? devSecrets().AUTH_JWT_SECRET;
  process.stdout.write(`${await signToken(secret, values)}\n`);
}

function signToken(secret, { tenant, user, roles, expires, name }, env = process.env) {
  const person = name ?? (user === DEMO_ADMIN ? DEMO_ADMIN_NAME : undefined);
  const jwt = new SignJWT({
    tenant,
    ...(person ? { name: person } : {}),
    roles: roles
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user)
    .setIssuedAt()
    .setExpirationTime(expires);
  if (env.AUTH_JWT_ISSUER) jwt.setIssuer(env.AUTH_JWT_ISSUER);
  if (env.AUTH_JWT_AUDIENCE) jwt.setAudience(env.AUTH_JWT_AUDIENCE);
  return jwt.sign(new TextEncoder().encode(secret));
}

module.exports = { signToken, DEMO_TENANT, DEMO_ADMIN };
if (require.main === module)
  main().catch((error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
