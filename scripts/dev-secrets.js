'use strict';
/** Development secrets, generated once and kept under .data/ so tokens and ciphertexts survive restarts. */
const fs = require('node:fs');
const path = require('node:path');
const { randomBytes } = require('node:crypto');

const FILE = path.resolve(__dirname, '..', '.data', 'dev-secrets.json');

function devSecrets() {
  if (fs.existsSync(FILE)) return JSON.parse(fs.readFileSync(FILE, 'utf8'));
  const secrets = {
    AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: `dev1:${randomBytes(32).toString('base64')}`,
    WEBHOOK_SIGNING_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
  };
  fs.mkdirSync(path.dirname(FILE), { recursive: true });
  fs.writeFileSync(FILE, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

module.exports = { devSecrets };
