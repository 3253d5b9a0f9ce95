'use strict';
// Resolves the `@app/<lib>` aliases for TypeScript run by ts-node (test child processes, demos).
const Module = require('node:module');
const path = require('node:path');

const libs = path.resolve(__dirname, '../libs');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  // `@app/<lib>` is the library's src/, `@app/<lib>/<entry>` a folder of it (libs/contracts has three).
  const match = /^@app\/([a-z-]+)(?:\/([a-z-]+))?$/.exec(request);
  return resolve.call(this, match ? path.join(libs, match[1], 'src', match[2] ?? '') : request, ...rest);
};
