'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { stopPostmaster } = require('../../scripts/embedded-db.js');

/** The e2e OpenAPI schema check's summary, from the report each spec file wrote (test/support/schema-check.ts). */
function schemaCheckSummary(runDir) {
  const dir = runDir && path.join(runDir, 'schema-check');
  if (!dir || !fs.existsSync(dir)) return;
  const pairs = new Set();
  const mismatches = [];
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  for (const file of files) {
    const report = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    for (const pair of report.pairs) pairs.add(pair);
    for (const m of report.mismatches) mismatches.push({ spec: path.basename(report.spec), ...m });
  }
  const operations = new Set([...pairs].map((p) => p.split(' ')[0]));
  const lines = [
    `OpenAPI schema check: ${pairs.size} distinct (operation, status) pairs validated over ${operations.size} operations in ${files.length} spec files; ${mismatches.length} mismatches`,
    ...mismatches.slice(0, 20).map((m) => `  MISMATCH ${m.spec}: ${m.request} -> ${m.status} (${m.operationId}): ${m.errors[0]}`),
  ];
  if (process.env.SCHEMA_CHECK_PAIRS) lines.push(...[...pairs].sort().map((p) => `  ${p}`));
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (process.env.SCHEMA_CHECK_SUMMARY_FILE) {
    fs.writeFileSync(process.env.SCHEMA_CHECK_SUMMARY_FILE, JSON.stringify({ pairs: [...pairs].sort(), mismatches }, null, 2));
  }
}

module.exports = async function globalTeardown() {
  schemaCheckSummary(process.env.TEST_RUN_DIR);
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
