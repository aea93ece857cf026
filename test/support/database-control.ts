import * as fs from 'node:fs';
import * as path from 'node:path';

// The embedded PostgreSQL's starter (scripts/embedded-db.js), as `npm start` and the run's global setup use it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const embedded = require('../../scripts/embedded-db.js') as {
  startEmbeddedPostgres: (options: {
    dataDir: string;
    log?: (line: string) => void;
  }) => Promise<{ url: string; port: number; dataDir: string; stop: () => Promise<void> }>;
  stopPostmaster: (dataDir: string) => Promise<void>;
  startPostmaster: (options: { dataDir: string; port: number }) => Promise<void>;
};

/** Where a spec's own servers live: a folder of the run, which the global teardown sweeps (its literal 'own-pg'). */
const OWN_DATABASES = 'own-pg';

/** A PostgreSQL server of one spec's own, which it may stop, start again and reconfigure. */
export interface OwnDatabase {
  /** Its connection string (pass it as the app's DATABASE_URL). */
  readonly url: string;
  /** Stops the server (fast shutdown): every connection to it breaks. */
  stop(): Promise<void>;
  /** Starts it again on the same data and port. */
  start(): Promise<void>;
  /** Stops it for good (afterAll). */
  close(): Promise<void>;
}

/**
 * A fresh embedded PostgreSQL for the specs that take the database away (outage, read-only): they
 * never stop or reconfigure the server the other spec files share, and they run whatever database
 * the run was given (an external DATABASE_URL included), never skipped.
 */
export async function startOwnDatabase(label: string): Promise<OwnDatabase> {
  const dataDir = path.join(process.env.TEST_RUN_DIR as string, OWN_DATABASES, label);
  fs.mkdirSync(path.dirname(dataDir), { recursive: true, mode: 0o755 });
  fs.chmodSync(path.dirname(dataDir), 0o755);
  const db = await embedded.startEmbeddedPostgres({ dataDir, log: () => undefined });
  return {
    url: db.url,
    stop: () => embedded.stopPostmaster(db.dataDir),
    start: () => embedded.startPostmaster({ dataDir: db.dataDir, port: db.port }),
    close: () => db.stop(),
  };
}
