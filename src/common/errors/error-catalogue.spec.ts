import * as fs from 'node:fs';
import * as path from 'node:path';
import { ERROR_CATALOGUE } from './error-catalogue';
import { errorDocUrl, publicCatalogue } from './public-catalogue';

type Triple = [http: number, code: number, subCode: number];
const key = ([http, code, subCode]: Triple) => `${http}/${code}/${subCode}`;

/** The rows of CONTRACT.md sections 9 and 13, one triple per code a cell names. */
const CONTRACT_ROWS: Triple[] = [
  [400, 100, 1],
  [400, 100, 2],
  [413, 100, 3],
  [415, 100, 4],
  [400, 100, 5],
  [400, 100, 6],
  [400, 200, 0],
  [400, 760, 0],
  [400, 660, 0],
  [400, 770, 0],
  [400, 750, 0],
  [400, 780, 0],
  [400, 350, 0],
  [401, 401, 0],
  [403, 403, 1],
  [403, 403, 2],
  [422, 422, 0],
  [503, 503, 1],
  [503, 503, 2],
  [503, 503, 3],
  [500, 500, 0],
  [200, 5, 370],
  [409, 5, 390],
  [200, 5, 381],
  [429, 429, 0],
];

/** SERVICE.md's error tables and the two business validation lines (HTTP "-" read by CONTRACT section 2). */
const SERVICE_ROWS: Triple[] = [
  [400, 700, 0],
  [400, 630, 0],
  [400, 1020, 0],
  [400, 1040, 0],
  [400, 1042, 0],
  [400, 101, 0],
  [400, 650, 0],
  [400, 650, 430],
  [400, 620, 0],
  [400, 400, 501],
  [400, 400, 502],
  [400, 400, 504],
  [400, 400, 505],
  [400, 400, 506],
  [400, 640, 501],
  [400, 640, 502],
  [400, 640, 503],
  [400, 640, 504],
  [400, 640, 505],
  [400, 640, 506],
  [200, 2, 60],
  [200, 2, 61],
  [200, 2, 63],
  [200, 2, 66],
  [400, 200, 0],
  [400, 350, 0],
  [400, 740, 0],
  [400, 750, 0],
  [400, 600, 0],
  [400, 300, 0],
  [400, 400, 507],
  [400, 400, 0],
  [400, 640, 507],
  [404, 10, 0],
  [400, 761, 0],
  [200, 5, 380],
  [200, 5, 362],
];

const UNKNOWN_ROUTE: Triple = [404, 404, 0];

/** CONTRACT section 2: an HTTP cell shown as "-" is 200 for a decline (code 2 or 5), 400 otherwise. */
const httpOf = (cell: string, code: number) => (cell === '-' ? (code === 2 || code === 5 ? 200 : 400) : Number(cell));
const numberOf = (cell: string) => (cell === '-' ? 0 : Number(cell));
const cells = (line: string) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

/** Every table row of a markdown text that has Code and subCode columns (HTTP column optional). */
function tableTriples(markdown: string): Triple[] {
  const triples: Triple[] = [];
  let header: string[] | null = null;
  for (const line of markdown.split('\n')) {
    if (!line.trim().startsWith('|')) {
      header = null;
      continue;
    }
    const row = cells(line);
    if (!header) {
      header = row.map((c) => c.toLowerCase());
      continue;
    }
    if (row.every((c) => /^-+$/.test(c))) continue;
    const at = (name: string) => header!.indexOf(name);
    if (at('code') >= 0 && at('subcode') >= 0) {
      const codes = row[at('code')].split(/[,/]/).map((c) => c.trim());
      const subCodes = row[at('subcode')].split('/').map((c) => c.trim());
      const https = at('http') >= 0 ? row[at('http')].split('/').map((c) => c.trim()) : ['-'];
      const pick = (list: string[], i: number) => list[list.length > 1 ? i : 0];
      const count = Math.max(codes.length, subCodes.length, https.length);
      for (let i = 0; i < count; i++) {
        const code = Number(pick(codes, i));
        triples.push([httpOf(pick(https, i), code), code, numberOf(pick(subCodes, i))]);
      }
    } else if (at('length subcode') >= 0) {
      // SERVICE.md's user-data table: length rows are code 400, invalid characters code 640, all HTTP 400.
      if (row[at('length subcode')] !== '-') triples.push([400, 400, Number(row[at('length subcode')])]);
      if (row[at('invalid-character subcode')] !== '-') triples.push([400, 640, Number(row[at('invalid-character subcode')])]);
    }
  }
  return triples;
}

/** "Business length validation, all HTTP 400, code 400: businessName subCode 507; city 504; …" */
function proseTriples(markdown: string): Triple[] {
  const triples: Triple[] = [];
  for (const match of markdown.matchAll(/all HTTP (\d+), code (\d+): ([^\n]*)/g)) {
    for (const sub of match[3].matchAll(/\b(\d+)\b/g)) triples.push([Number(match[1]), Number(match[2]), Number(sub[1])]);
  }
  return triples;
}

function section(markdown: string, start: RegExp, end: RegExp): string {
  const from = markdown.search(start);
  const rest = markdown.slice(from);
  const to = rest.slice(1).search(end);
  return to < 0 ? rest : rest.slice(0, to + 1);
}

const distinct = (triples: Triple[]) => [...new Set(triples.map(key))].sort();
/** `../shared/spec` beside the clone (CI always has it): a missing file fails the test, never skips it. */
const SPEC_DIR = path.resolve(__dirname, '../../../../shared/spec');
function readSpec(name: 'SERVICE.md' | 'CONTRACT.md'): string {
  const file = path.join(SPEC_DIR, name);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: this spec reads ../shared/spec beside the clone`);
  return fs.readFileSync(file, 'utf8');
}

describe('ERROR_CATALOGUE', () => {
  const entries = Object.values(ERROR_CATALOGUE);

  it.each(CONTRACT_ROWS)('has the contract row %i/%i/%i, with a description', (http, code, subCode) => {
    const rows = entries.filter((e) => e.http === http && e.code === code && e.subCode === subCode);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.description.trim().length).toBeGreaterThan(0);
  });

  it('gives every row a description', () => {
    expect(entries.filter((e) => e.description.trim() === '')).toEqual([]);
  });

  it('produces exactly the triples of SERVICE.md, CONTRACT sections 9 and 13 and the unknown route, nothing else', () => {
    expect(distinct(entries.map((e) => [e.http, e.code, e.subCode]))).toEqual(distinct([...SERVICE_ROWS, ...CONTRACT_ROWS, UNKNOWN_ROUTE]));
  });

  it('lists the rows parsed from the markdown tables of SERVICE.md and CONTRACT.md', () => {
    const service = section(readSpec('SERVICE.md'), /^## Errors/m, /^## /m);
    const contract = readSpec('CONTRACT.md');
    const parsedService = [...tableTriples(service), ...proseTriples(service)];
    const parsedContract = [...tableTriples(section(contract, /^## 9\./m, /^## /m)), ...tableTriples(section(contract, /^## 13\./m, /^## /m))];
    expect(distinct(parsedService)).toEqual(distinct(SERVICE_ROWS));
    expect(distinct(parsedContract)).toEqual(distinct(CONTRACT_ROWS));
  });
});

describe(publicCatalogue.name, () => {
  const sut = publicCatalogue('https://api.example.com');

  it('has one entry per distinct triple of the catalogue, sorted, each linking to its anchor', () => {
    expect(sut.map((e) => key([e.httpStatus, e.code, e.subCode]))).toEqual(
      distinct(Object.values(ERROR_CATALOGUE).map((e) => [e.http, e.code, e.subCode])).sort((a, b) => {
        const [x, y] = [a.split('/').map(Number), b.split('/').map(Number)];
        return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
      }),
    );
    for (const e of sut) expect(e.docUrl).toBe(`https://api.example.com/docs/errors#${e.code}-${e.subCode}`);
    expect(errorDocUrl('https://x', 640, 504)).toBe('https://x/docs/errors#640-504');
  });

  it('folds the rows sharing a triple into one description naming each', () => {
    const notFound = sut.find((e) => e.httpStatus === 404 && e.code === 10)!;
    expect(notFound.description).toContain('Account Not Found');
    expect(notFound.description).toContain('Business profile not found');
    const conflicts = sut.find((e) => e.code === 630)!;
    expect(conflicts.description).toContain('Cannot pass both last4SSN and SSN');
    expect(conflicts.description).toContain('businessData is only valid when accountType is business');
  });
});
