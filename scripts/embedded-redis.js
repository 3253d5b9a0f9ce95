'use strict';
/**
 * Starts the `redis-server` found on PATH for `npm start` when no Redis answers. The npm packages that
 * provide one (redis-memory-server) download and compile Redis sources from outside the npm registry,
 * which CI and many machines cannot reach, so the binary comes from the OS.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const HOW_TO_GET_REDIS =
  'install one (sudo apt-get install -y redis-server, or brew install redis) or set REDIS_URL to yours';

/**
 * @param {{dir: string, port: number}} options
 * @returns {Promise<{url: string, stop: () => Promise<void>}>}
 */
async function startEmbeddedRedis({ dir, port }) {
  fs.mkdirSync(dir, { recursive: true });
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    path.resolve(dir),
    '--appendonly',
    'yes',
    '--daemonize',
    'no',
    '--save',
    '',
  ];
  const server = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  server.stdout.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  server.stderr.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  await new Promise((ready, fail) => {
    server.once('error', (error) =>
      fail(
        new Error(
          error.code === 'ENOENT'
            ? `no redis-server on PATH: ${HOW_TO_GET_REDIS}`
            : `redis-server could not run (${error.code})`,
        ),
      ),
    );
    server.once('exit', (code) => fail(new Error(`redis-server exited (${code}): ${lastLine(log)}`)));
    server.stdout.on('data', () => {
      if (log.includes('Ready to accept connections')) ready();
    });
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopProcess(server) };
}

/** Resolves once the process is gone, also when it already went (Ctrl-C reaches the whole group). */
function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

function lastLine(text) {
  return (
    text
      .trim()
      .split('\n')
      .pop()
      ?.replace(/^\d+:\w( \S+){4} [#*.-] /, '') ?? ''
  );
}

module.exports = { startEmbeddedRedis };
