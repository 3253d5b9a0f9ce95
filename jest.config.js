const { availableParallelism } = require('node:os');

// Two projects: `unit` (specs beside the code: pure logic, one class, seconds a file) and `e2e` (apps/<app>/test
// and libs/http: apps on real ports against real PostgreSQL, Redis and HTTP peers). `npm test` runs both.
const shared = {
  rootDir: '.',
  // jest's node environment, reporting any handle a file leaves open (test/leak-reporting-environment.js).
  testEnvironment: '<rootDir>/test/leak-reporting-environment.js',
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  // `@app/<lib>` is libs/<lib>/src; `@app/<lib>/<entry>` a folder of it (libs/contracts: views, openapi, payloads).
  moduleNameMapper: { '^@app/([a-z-]+)(/[a-z-]+)?$': '<rootDir>/libs/$1/src$2' },
  // The same files in both projects, so jest runs them once: one database and one Redis prefix per run.
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};

const timingSpecs = require('./test/timing-specs');

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testRegex: '(apps|libs)/.*\\.spec\\.ts$' },
    {
      ...shared,
      displayName: 'e2e',
      testRegex: '(apps|libs)/.*\\.e2e-spec\\.ts$',
      // Run alone after the rest (jest.timing.config.js).
      testPathIgnorePatterns: ['/node_modules/', ...timingSpecs.map((path) => `<rootDir>/${path}`)],
    },
  ],
  // One worker per core. Each e2e file runs apps, simulators, extraction processes and PostgreSQL backends of its own:
  // four workers on two cores kept 8-11 threads runnable (CPU pressure 90 %), and on a slower machine bounds that
  // are about time (outages, retries, scrapes) broke in 6-8 files of 257.
  maxWorkers: Math.max(2, availableParallelism()),
  testTimeout: 60000,
};
