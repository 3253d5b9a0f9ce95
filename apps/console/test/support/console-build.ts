import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../../..');
const CONSOLE = join(ROOT, 'apps/console');
const BUILT = join(ROOT, 'dist/console');

/**
 * A console build at least as new as its sources: dist/console when fresh (npm run build made it),
 * else a build into a temporary directory, so a fresh clone's `npm test` needs no build step first.
 */
export function freshConsoleBuild(): string {
  const index = join(BUILT, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestSource()) return BUILT;
  const outDir = mkdtempSync(join(tmpdir(), 'console-build-'));
  const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
  const built = spawnSync(
    process.execPath,
    [vite, 'build', '--config', join(CONSOLE, 'vite.config.mts'), '--outDir', outDir, '--emptyOutDir'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production', VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
    },
  );
  if (built.status !== 0) throw new Error(`vite build of the console failed:\n${built.stdout}\n${built.stderr}`);
  return outDir;
}

function newestSource(): number {
  let newest = 0;
  const walk = (path: string) => {
    const stat = statSync(path);
    if (stat.isDirectory()) readdirSync(path).forEach((name) => walk(join(path, name)));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  const views = join(ROOT, 'libs/contracts/src/views');
  [join(CONSOLE, 'src'), join(CONSOLE, 'index.html'), join(CONSOLE, 'vite.config.mts'), views].forEach(walk);
  return newest;
}
