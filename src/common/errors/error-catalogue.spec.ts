import { ERROR_CATALOGUE } from './error-catalogue';

type Triple = [http: number, code: number, subCode: number];

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
});
