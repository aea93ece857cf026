// Stops and restarts the run's embedded PostgreSQL (outage tests). Only for the embedded server
// that global setup started: with an external DATABASE_URL these helpers are unavailable.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const embedded = require('../../scripts/embedded-db.js') as {
  stopPostmaster: (dataDir: string) => Promise<void>;
  startPostmaster: (options: { dataDir: string; port: number }) => Promise<void>;
};

export function canControlDatabase(): boolean {
  return Boolean(process.env.TEST_EMBEDDED_PG_DIR && process.env.TEST_EMBEDDED_PG_PORT);
}

export async function stopDatabase(): Promise<void> {
  await embedded.stopPostmaster(process.env.TEST_EMBEDDED_PG_DIR as string);
}

export async function startDatabase(): Promise<void> {
  await embedded.startPostmaster({ dataDir: process.env.TEST_EMBEDDED_PG_DIR as string, port: Number(process.env.TEST_EMBEDDED_PG_PORT) });
}
