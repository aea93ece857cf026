/** One embedded PostgreSQL for the whole run (globalSetup); each e2e file works in its own schema. */
module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  testRegex: ['(src|client)/.*\\.spec\\.ts$', 'test/.*\\.e2e-spec\\.ts$'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.spec.json' }] },
  testEnvironment: 'node',
  setupFiles: ['reflect-metadata'],
  globalSetup: '<rootDir>/test/setup/global-setup.js',
  globalTeardown: '<rootDir>/test/setup/global-teardown.js',
  testTimeout: 60000,
  // One worker: files share one PostgreSQL, and the outage spec stops it.
  maxWorkers: 1,
  verbose: false,
};
