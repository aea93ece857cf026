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
  const documented = documentedPairs();
  const unexercised = documented.filter((p) => !pairs.has(p));
  const lines = [
    `OpenAPI schema check: ${pairs.size} distinct (operation, status) pairs validated over ${operations.size} operations in ${files.length} spec files; ${mismatches.length} mismatches` +
      (documented.length ? ` (${unexercised.length} of the ${documented.length} documented pairs with a status code never answered)` : ''),
    ...mismatches.slice(0, 20).map((m) => `  MISMATCH ${m.spec}: ${m.request} -> ${m.status} (${m.operationId}): ${m.errors[0]}`),
  ];
  if (process.env.SCHEMA_CHECK_PAIRS) {
    lines.push(...[...pairs].sort().map((p) => `  ${p}`));
    lines.push(...unexercised.map((p) => `  never answered: ${p}`));
  }
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (process.env.SCHEMA_CHECK_SUMMARY_FILE) {
    fs.writeFileSync(process.env.SCHEMA_CHECK_SUMMARY_FILE, JSON.stringify({ pairs: [...pairs].sort(), mismatches }, null, 2));
  }
}

/** (operationId, status) pairs of the committed document (client/openapi.json), `default` left out. */
function documentedPairs() {
  try {
    const document = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'client', 'openapi.json'), 'utf8'));
    const pairs = [];
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) {
        for (const status of Object.keys(operation.responses || {})) if (/^\d{3}$/.test(status)) pairs.push(`${operation.operationId} ${status}`);
      }
    }
    return pairs;
  } catch {
    return [];
  }
}

module.exports = async function globalTeardown() {
  schemaCheckSummary(process.env.TEST_RUN_DIR);
  const db = globalThis.__EMBEDDED_PG__;
  if (db) await db.stop().catch(() => undefined);
  // A test may have restarted the server itself: stop whatever postmaster owns the folder.
  if (process.env.TEST_EMBEDDED_PG_DIR) await stopPostmaster(process.env.TEST_EMBEDDED_PG_DIR);
  // And any server a spec started for itself (test/support/database-control.ts) that it left running.
  const own = process.env.TEST_RUN_DIR ? path.join(process.env.TEST_RUN_DIR, 'own-pg') : undefined;
  if (own && fs.existsSync(own)) {
    for (const name of fs.readdirSync(own)) await stopPostmaster(path.join(own, name)).catch(() => undefined);
  }
  if (!process.env.KEEP_TEST_DATA) {
    for (const dir of [process.env.TEST_RUN_DIR, process.env.TEST_EMBEDDED_PG_DIR]) {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
};
