import { CsvError, parse } from 'csv-parse/sync';

/** One row of `sdn.csv`; `type` is `individual`, `vessel`, `aircraft`, or null for an entity (`-0-`). */
export interface SdnRecord {
  readonly entNum: number;
  readonly name: string;
  readonly type: string | null;
}

/** One row of `alt.csv`: another name of the SDN entry `entNum`. */
export interface AltRecord {
  readonly entNum: number;
  readonly altNum: number;
  readonly altType: string | null;
  readonly altName: string;
}

/** A list file that cannot be read. Messages name the file and line, never a field's content (names). */
export class OfacListError extends Error {}

const SDN_COLUMNS = 12;
const ALT_COLUMNS = 5;
/** Treasury's "empty" marker, written with or without trailing spaces. */
const EMPTY = '-0-';
/** The DOS end-of-file byte the legacy files end with, possibly followed by a line end. */
// eslint-disable-next-line no-control-regex -- the byte is the point
const TRAILING_EOF = /\x1a[\r\n]*$/;

export function parseSdnCsv(content: Buffer | string, file = 'sdn.csv'): SdnRecord[] {
  return rows(content, file, SDN_COLUMNS).map(([entNum, name, type], index) => ({
    entNum: entryNumber(entNum, file, index),
    name: required(name, file, index, 'SDN_Name'),
    type: optional(type)?.toLowerCase() ?? null,
  }));
}

export function parseAltCsv(content: Buffer | string, file = 'alt.csv'): AltRecord[] {
  return rows(content, file, ALT_COLUMNS).map(([entNum, altNum, altType, altName], index) => ({
    entNum: entryNumber(entNum, file, index),
    altNum: entryNumber(altNum, file, index),
    altType: optional(altType)?.toLowerCase() ?? null,
    altName: required(altName, file, index, 'alt_name'),
  }));
}

/** The files are ASCII in practice; a file that is not valid UTF-8 is read as Windows Latin-1. */
export function decodeListFile(content: Buffer | string): string {
  if (typeof content === 'string') return content;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    return content.toString('latin1');
  }
}

function rows(content: Buffer | string, file: string, columns: number): string[][] {
  const text = decodeListFile(content).replace(TRAILING_EOF, '');
  let records: string[][];
  try {
    // relax_quotes: a stray quote inside an unquoted remark is text, as Treasury means it.
    records = parse(text, { bom: true, skip_empty_lines: true, relax_quotes: true, relax_column_count: true });
  } catch (error: unknown) {
    const where = error instanceof CsvError ? `${error.code} at line ${error.lines}` : 'unreadable';
    throw new OfacListError(`${file}: malformed CSV (${where})`);
  }
  records.forEach((record, index) => {
    if (record.length !== columns) {
      throw new OfacListError(`${file}: record ${index + 1} has ${record.length} fields, expected ${columns}`);
    }
  });
  return records;
}

function optional(field: string | undefined): string | null {
  const value = field?.trim() ?? '';
  return value === '' || value === EMPTY ? null : value;
}

function required(field: string | undefined, file: string, index: number, column: string): string {
  const value = optional(field);
  if (value === null) throw new OfacListError(`${file}: record ${index + 1} has no ${column}`);
  return value;
}

function entryNumber(field: string | undefined, file: string, index: number): number {
  const value = Number(optional(field) ?? Number.NaN);
  if (!Number.isSafeInteger(value) || value < 0) throw new OfacListError(`${file}: record ${index + 1} has no valid entry number`);
  return value;
}
