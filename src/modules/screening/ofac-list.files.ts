import * as fs from 'node:fs';
import * as path from 'node:path';
import { OfacIndex } from './ofac-index';
import { OfacListError, parseAltCsv, parseSdnCsv } from './sdn-csv.parser';

export const SDN_FILE = 'sdn.csv';
export const ALT_FILE = 'alt.csv';

/** An index, the fingerprint of the files it was built from (taken before they were read), and when they were last modified. */
export interface LoadedOfacList {
  readonly index: OfacIndex;
  readonly fingerprint: string;
  readonly modifiedAt: Date;
}

/** Identity, size and modification time of both files; a missing file gives its error code instead. */
export async function listFingerprint(dir: string): Promise<string> {
  const parts = await Promise.all(
    [SDN_FILE, ALT_FILE].map((file) => fs.promises.stat(path.join(dir, file)).then(describeStat, (error: unknown) => `unreadable:${errorCode(error)}`)),
  );
  return parts.join('|');
}

/** At start: reads and indexes the list, throwing when it is missing or malformed. */
export function loadOfacListSync(dir: string): LoadedOfacList {
  const stats = [SDN_FILE, ALT_FILE].map((file) => fs.statSync(path.join(dir, file)));
  const index = build(fs.readFileSync(path.join(dir, SDN_FILE)), fs.readFileSync(path.join(dir, ALT_FILE)));
  return { index, fingerprint: stats.map(describeStat).join('|'), modifiedAt: newest(stats) };
}

/** On reload: reads without blocking, then parses and indexes (a few hundred ms for the full list). */
export async function loadOfacList(dir: string, fingerprint: string): Promise<LoadedOfacList> {
  const stats = await Promise.all([SDN_FILE, ALT_FILE].map((file) => fs.promises.stat(path.join(dir, file))));
  const [sdn, alt] = await Promise.all([SDN_FILE, ALT_FILE].map((file) => fs.promises.readFile(path.join(dir, file))));
  return { index: build(sdn, alt), fingerprint, modifiedAt: newest(stats) };
}

function newest(stats: readonly fs.Stats[]): Date {
  return new Date(Math.max(...stats.map((stat) => stat.mtimeMs)));
}

/** An emptied or cut file would otherwise screen nobody, silently. */
function build(sdn: Buffer, alt: Buffer): OfacIndex {
  const index = OfacIndex.build(parseSdnCsv(sdn, SDN_FILE), parseAltCsv(alt, ALT_FILE));
  if (index.stats.individuals === 0) throw new OfacListError(`${SDN_FILE}: no individuals`);
  return index;
}

export function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : 'error';
}

function describeStat(stat: fs.Stats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}
