// One config for unit specs (beside the code) and e2e specs (apps/<app>/test).
const libs = [
  'config',
  'errors',
  'auth',
  'crypto',
  'database',
  'queue',
  'logging',
  'health',
  'http',
  'contracts',
  'testing',
  'outbound',
  'metrics',
  'redis',
];
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['js', 'json', 'ts'],
  testRegex: '(apps|libs)/.*\\.(spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.ts$': 'ts-jest' },
  moduleNameMapper: Object.fromEntries(libs.map((l) => [`^@app/${l}$`, `<rootDir>/libs/${l}/src`])),
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // e2e files mostly wait on sockets and timers, so more workers than cores pays off.
  maxWorkers: 4,
  testTimeout: 60000,
};
