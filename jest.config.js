// One config for unit specs (beside the code) and e2e specs (apps/<app>/test).
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['js', 'json', 'ts'],
  testRegex: '(apps|libs)/.*\\.(spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.ts$': 'ts-jest' },
  // `@app/<lib>` is libs/<lib>/src; `@app/<lib>/<entry>` a folder of it (libs/contracts: views, openapi, payloads).
  moduleNameMapper: { '^@app/([a-z-]+)(/[a-z-]+)?$': '<rootDir>/libs/$1/src$2' },
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // e2e files mostly wait on sockets and timers, so more workers than cores pays off.
  maxWorkers: 4,
  testTimeout: 60000,
};
