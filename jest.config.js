/** One embedded PostgreSQL for the whole run (globalSetup); each e2e file works in its own schema. */
module.exports = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  testRegex: ['(src|client)/.*\\.spec\\.ts$', 'test/.*\\.e2e-spec\\.ts$'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.spec.json' }] },
  testEnvironment: 'node',
  // The SDK's README example imports the package by name; in the repo it is client/.
  moduleNameMapper: { '^enrollment-service-client$': '<rootDir>/client/index.ts' },
  setupFiles: ['reflect-metadata'],
  // The e2e OpenAPI schema check (test/support/schema-check.ts).
  setupFilesAfterEnv: ['<rootDir>/test/setup/schema-check.setup.ts'],
  globalSetup: '<rootDir>/test/setup/global-setup.js',
  globalTeardown: '<rootDir>/test/setup/global-teardown.js',
  testTimeout: 60000,
  // One worker: files share one PostgreSQL, and the outage spec stops it.
  maxWorkers: 1,
  verbose: false,
};
