/**
 * `npm run bench:screening`: OFAC screening time per enrollment against a made-up list of the
 * real SDN list's size (ofac-synthetic-list.ts), written in the legacy CSV format to a temporary
 * folder and loaded through the service's own parser, index and start-up path. Each enrollee name
 * is timed alone (one `screen` call, as an enrollment makes it); a share of them also goes through a
 * full scan of every list name, to check that the index answers exactly what scoring everything does.
 * Settings (env): SCREENING_NAMES (5000), SCREENING_WARMUP (1000), SCREENING_HIT_SHARE (0.3),
 * SCREENING_CHECKED (1000 names also scanned), OFAC_MATCH_THRESHOLD (0.92), BENCH_KEEP=1 (keep the folder).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { screeningVariants } from '../src/modules/screening/name-normalizer';
import { loadOfacListSync } from '../src/modules/screening/ofac-list.files';
import { OfacMatch } from '../src/modules/screening/ofac-match';
import { OfacScreeningService } from '../src/modules/screening/ofac-screening.service';
import { EnrolleeName, REAL_LIST_SIZE, SyntheticSdnList } from './ofac-synthetic-list';

const settings = {
  names: Number(process.env.SCREENING_NAMES ?? 5000),
  warmup: Number(process.env.SCREENING_WARMUP ?? 1000),
  hitShare: Number(process.env.SCREENING_HIT_SHARE ?? 0.3),
  checked: Number(process.env.SCREENING_CHECKED ?? 1000),
  threshold: Number(process.env.OFAC_MATCH_THRESHOLD ?? 0.92),
  keep: process.env.BENCH_KEEP === '1',
};

function main(): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ofac-bench-'));
  try {
    const list = new SyntheticSdnList(REAL_LIST_SIZE);
    const rows = list.write(dir);
    const sut = new OfacScreeningService({ listDir: dir, matchThreshold: settings.threshold, reloadIntervalMs: 3_600_000 });
    const loadStart = process.hrtime.bigint();
    sut.onModuleInit();
    const loadMs = elapsedMs(loadStart);
    sut.onModuleDestroy();

    const [warmup, names] = [list.enrollees(settings.warmup, settings.hitShare), list.enrollees(settings.names, settings.hitShare)];
    for (const name of warmup) sut.screen(name);
    const times: number[] = [];
    const results: (OfacMatch | null)[] = [];
    for (const name of names) {
      const start = process.hrtime.bigint();
      results.push(sut.screen(name));
      times.push(elapsedMs(start));
    }

    const { index } = loadOfacListSync(dir);
    const checked = names.slice(0, settings.checked);
    const scanTimes: number[] = [];
    const disagreements = checked.filter((name, i) => {
      const start = process.hrtime.bigint();
      const scanned = index.scan(screeningVariants(name), settings.threshold);
      scanTimes.push(elapsedMs(start));
      return JSON.stringify(scanned) !== JSON.stringify(results[i]);
    }).length;

    const report = {
      list: { ...rows, ...index.stats, sdnBytes: fs.statSync(path.join(dir, 'sdn.csv')).size, altBytes: fs.statSync(path.join(dir, 'alt.csv')).size },
      loadMs: round(loadMs),
      threshold: settings.threshold,
      screenings: names.length,
      perScreeningMs: summary(times),
      hitsByKind: hitsByKind(names, results),
      fullScan: { checked: checked.length, disagreements, perScreeningMs: summary(scanTimes) },
      machine: { node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown' },
    };
    printReport(report);
    console.log(JSON.stringify(report));
    if (disagreements > 0) process.exitCode = 1;
  } finally {
    if (!settings.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

function hitsByKind(names: readonly EnrolleeName[], results: readonly (OfacMatch | null)[]): Record<string, string> {
  const counts: Record<string, [number, number]> = {};
  names.forEach((name, i) => {
    const count = (counts[name.kind] ??= [0, 0]);
    count[1]++;
    if (results[i]) count[0]++;
  });
  return Object.fromEntries(Object.entries(counts).map(([kind, [hits, total]]) => [kind, `${hits}/${total}`]));
}

function summary(times: readonly number[]): { mean: number; p50: number; p99: number; max: number } {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mean = sorted.reduce((sum, t) => sum + t, 0) / Math.max(1, sorted.length);
  return { mean: round(mean), p50: round(at(0.5)), p99: round(at(0.99)), max: round(at(1)) };
}

function printReport(report: {
  list: Record<string, number>;
  loadMs: number;
  perScreeningMs: ReturnType<typeof summary>;
  hitsByKind: Record<string, string>;
  fullScan: { checked: number; disagreements: number; perScreeningMs: ReturnType<typeof summary> };
}): void {
  const { list, perScreeningMs: t, fullScan } = report;
  console.log(
    `list: ${list.sdnRows} SDN rows, ${list.altRows} alias rows; indexed ${list.individuals} individuals, ${list.names} names, ${list.tokens} distinct tokens; loaded in ${report.loadMs} ms`,
  );
  console.log(`screening (ms): mean ${t.mean}, p50 ${t.p50}, p99 ${t.p99}, max ${t.max}`);
  console.log(
    `hits by kind: ${Object.entries(report.hitsByKind)
      .map(([kind, share]) => `${kind} ${share}`)
      .join(', ')}`,
  );
  console.log(
    `full scan (ms, ${fullScan.checked} names): mean ${fullScan.perScreeningMs.mean}, p99 ${fullScan.perScreeningMs.p99}; answers differing from the index: ${fullScan.disagreements}`,
  );
}

function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

main();
