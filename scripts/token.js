#!/usr/bin/env node
'use strict';
/**
 * Prints a development platform token:
 *   npm run token -- --tenant t1 --user u1 --roles admin[,oauth-connectors:manage] [--expires 12h]
 * Signs with AUTH_JWT_SECRET, or the secret `npm start` generated under .data/.
 */
const { parseArgs } = require('node:util');
const { SignJWT } = require('jose');
const { devSecrets } = require('./dev-secrets');

async function main() {
  const { values } = parseArgs({
    options: {
      tenant: { type: 'string', default: '00000000-0000-4000-8000-000000000001' },
      user: { type: 'string', default: '00000000-0000-4000-8000-0000000000a1' },
      roles: { type: 'string', default: '' },
      expires: { type: 'string', default: '12h' },
    },
  });
  const secret = process.env.AUTH_JWT_SECRET ?? devSecrets().AUTH_JWT_SECRET;
  process.stdout.write(`${await signToken(secret, values)}\n`);
}

function signToken(secret, { tenant, user, roles, expires }) {
  return new SignJWT({ tenant, roles: roles.split(',').map((r) => r.trim()).filter(Boolean) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user)
    .setIssuedAt()
    .setExpirationTime(expires)
    .sign(new TextEncoder().encode(secret));
}

module.exports = { signToken };
if (require.main === module) main().catch((error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
