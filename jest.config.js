/**
 * Two projects: `unit` (src, client and bench specs: no database, no HTTP, milliseconds each) and `e2e`
 * (test/: one embedded PostgreSQL for the whole run, started by its globalSetup; each file works in
 * its own schema). `npm run test:unit` selects the first.
 */
// Jest follows Node's require(esm) (jose, p-limit and the other ESM-only dependencies) only through
// vm.SyntheticModule, which Node exposes under --experimental-vm-modules: `npm test` passes it.
// One line and exit 1 (docs/testing.md): a thrown Error would print Jest's stack trace around it.
if (typeof require('node:vm').SyntheticModule !== 'function') {
  process.stderr.write('Jest needs Node 24 with --experimental-vm-modules: run `npm test`, or set NODE_OPTIONS=--experimental-vm-modules\n');
  process.exit(1);
}

const shared = {
  rootDir: '.',
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.spec.json' }] },
  testEnvironment: 'node',
  // The SDK's README example imports the package by name; in the repo it is client/.
  moduleNameMapper: { '^enrollment-service-client$': '<rootDir>/client/index.ts' },
  setupFiles: ['reflect-metadata'],
};

module.exports = {
  testTimeout: 60000,
  // One worker: the e2e files share one PostgreSQL and the machine's two cores with the apps they start.
  maxWorkers: 1,
  verbose: false,
  projects: [
    { ...shared, displayName: 'unit', testRegex: ['(src|client|bench)/.*\\.spec\\.ts$'] },
    {
      ...shared,
      displayName: 'e2e',
      testRegex: ['test/.*\\.e2e-spec\\.ts$'],
      // The e2e OpenAPI schema check (test/support/schema-check.ts).
      setupFilesAfterEnv: ['<rootDir>/test/setup/schema-check.setup.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.js',
      globalTeardown: '<rootDir>/test/setup/global-teardown.js',
    },
  ],
};
