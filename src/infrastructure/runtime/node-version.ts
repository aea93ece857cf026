// Imported first by the service's entry points (src/main.ts and the telemetry preload that
// `npm start` loads before it): on a Node older than the one the service is built for it stops
// there, with one line, rather than later on a missing API. `engines`, `.nvmrc` and the
// Dockerfile's base say the same major.
export const MINIMUM_NODE_MAJOR = 24;

/** The line to stop with on `version` (process.versions.node), or undefined when it is recent enough. */
export function nodeVersionProblem(version: string): string | undefined {
  const major = Number.parseInt(version.split('.')[0] ?? '', 10);
  if (major >= MINIMUM_NODE_MAJOR) return undefined;
  return (
    `enrollment-service needs Node ${MINIMUM_NODE_MAJOR} or newer, not ${version}: ` +
    'run it through npm (`npm start`), whose scripts use the Node 24 that `npm ci` puts in node_modules/.bin'
  );
}

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
