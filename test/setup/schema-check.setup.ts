import { schemaCheck } from '../support/schema-check';

/**
 * Installed in every test file (setupFilesAfterEnv): the global fetch, which the specs and the
 * typed client use, checks every answer of a watched test app against its /openapi.json.
 * The fuzz spec sends random paths and bytes on purpose (CONTRACT section 15 leaves it outside).
 */
const EXCLUDED_SPECS = [/fuzz\.e2e-spec\.ts$/];

const spec = expect.getState().testPath ?? '';
if (!EXCLUDED_SPECS.some((pattern) => pattern.test(spec))) {
  schemaCheck.install();
  afterEach(() => schemaCheck.assertNoPendingMismatch());
  afterAll(() => {
    schemaCheck.writeReport(spec);
    schemaCheck.assertNoPendingMismatch();
  });
}
