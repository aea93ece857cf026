/**
 * Makes a `node --perf-basic-prof` symbol map (`/tmp/perf-<pid>.map`) name each address by the
 * function that lives there last. V8 frees code and reuses its addresses, and the map only ever
 * grows: Linux `perf` then names a hot request function by whatever dead function first held its
 * address (start-up code such as the OpenAPI builder or Nest's injector showed up in request stacks).
 * Run it after `perf record` and before `perf report` or `perf script`:
 * `node dist/bench/perf-map.js /tmp/perf-<pid>.map` (rewrites the file; bench/README.md, "Profiling").
 */
import * as fs from 'node:fs';

interface Entry {
  start: bigint;
  end: bigint;
  line: string;
}

/** The map's lines with every entry dropped that a later one overlaps, in address order. */
export function newestEntries(lines: readonly string[]): string[] {
  const kept: Entry[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as string;
    const [start, size] = line.split(' ', 2);
    if (!start || !size) continue;
    const entry = { start: BigInt(`0x${start}`), end: BigInt(`0x${start}`) + BigInt(`0x${size}`), line };
    const at = firstEndingAfter(kept, entry.start);
    const next = kept[at];
    if (next && next.start < entry.end) continue;
    kept.splice(at, 0, entry);
  }
  return kept.map((entry) => entry.line);
}

/** Index of the first kept entry (sorted, disjoint) that ends after `address`. */
function firstEndingAfter(kept: readonly Entry[], address: bigint): number {
  let low = 0;
  let high = kept.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((kept[middle] as Entry).end <= address) low = middle + 1;
    else high = middle;
  }
  return low;
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node dist/bench/perf-map.js /tmp/perf-<pid>.map');
    process.exit(2);
  }
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const kept = newestEntries(lines);
  fs.writeFileSync(file, `${kept.join('\n')}\n`);
  console.log(`${file}: ${lines.length} entries, ${kept.length} kept`);
}
