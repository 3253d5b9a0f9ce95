// The timing specs (test/timing-specs.js), one at a time after the rest of `npm test`: each measures how long
// one tenant waits while another floods the service with CPU-bound work, which only a quiet machine can tell.
const { projects } = require('./jest.config');
const timingSpecs = require('./test/timing-specs');

const e2e = projects.find((project) => project.displayName === 'e2e');

module.exports = {
  projects: [
    {
      ...e2e,
      displayName: 'timing',
      testRegex: undefined,
      testMatch: timingSpecs.map((path) => `<rootDir>/${path}`),
      testPathIgnorePatterns: ['/node_modules/'],
    },
  ],
  maxWorkers: 1,
  testTimeout: 60000,
};
