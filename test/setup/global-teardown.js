'use strict';
const fs = require('node:fs');
const { stopPostmaster } = require('../../scripts/embedded-db.js');

module.exports = async function globalTeardown() {
  const db = globalThis.__EMBEDDED_PG__;
  if (db) await db.stop().catch(() => undefined);
  // A test may have restarted the server itself: stop whatever postmaster owns the folder.
  if (process.env.TEST_EMBEDDED_PG_DIR) await stopPostmaster(process.env.TEST_EMBEDDED_PG_DIR);
  if (!process.env.KEEP_TEST_DATA) {
    for (const dir of [process.env.TEST_RUN_DIR, process.env.TEST_EMBEDDED_PG_DIR]) {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
};
