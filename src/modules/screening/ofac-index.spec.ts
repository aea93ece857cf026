import fc from 'fast-check';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sdnNameTokens } from './name-normalizer';
import { OfacIndex } from './ofac-index';
import { AltRecord, parseAltCsv, parseSdnCsv, SdnRecord } from './sdn-csv.parser';

const FIXTURE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'ofac');
const THRESHOLD = 0.92;
const SYLLABLES = ['al', 'ba', 'ker', 'mo', 'ha', 'med', 'ri', 'na', 'zo', 'tev', 'lin', 'sa', 'dor', 'qui', 'vel', 'an', 'ro', 'is'];

const individual = (entNum: number, name: string): SdnRecord => ({ entNum, name, type: 'individual' });
const alias = (entNum: number, altNum: number, altName: string): AltRecord => ({ entNum, altNum, altType: 'aka', altName });

describe(OfacIndex.name, () => {
  it('indexes individuals and their aliases only', () => {
    const sut = OfacIndex.build(parseSdnCsv(fs.readFileSync(path.join(FIXTURE, 'sdn.csv'))), parseAltCsv(fs.readFileSync(path.join(FIXTURE, 'alt.csv'))));

    expect(sut.stats).toEqual({ individuals: 5, skippedEntries: 3, names: 9, aliases: 4, tokens: 21 });
    expect(sut.search([['bristow', 'halvorsen', 'group']], 0.5)).toBeNull();
    expect(sut.search([['lady', 'perpetua']], 0.5)).toBeNull();
  });

  it('indexes an alias spelled like the primary name once, and answers the primary', () => {
    const sut = OfacIndex.build([individual(1, 'NUNEZ, Jose')], [alias(1, 10, 'Núñez, José'), alias(1, 11, 'JOSE NUNEZ')]);

    expect(sut.stats.names).toBe(1);
    expect(sut.search([['jose', 'nunez']], THRESHOLD)).toEqual({ entNum: 1, matchedName: 'NUNEZ, Jose', score: 1, kind: 'primary' });
  });

  it('answers the best score, then a primary name, then the lowest entry number', () => {
    const sut = OfacIndex.build([individual(3, 'ROE, Janet'), individual(2, 'ROE, Jane'), individual(1, 'DOE, Jane')], [alias(1, 10, 'ROE, Jane')]);

    expect(sut.search([['jane', 'roe']], THRESHOLD)).toMatchObject({ entNum: 2, kind: 'primary', score: 1 });
    expect(sut.search([['janet', 'roe']], THRESHOLD)).toMatchObject({ entNum: 3, score: 1 });
  });

  it('takes the best of the name variants it is given', () => {
    const sut = OfacIndex.build([individual(1, 'NUNEZ, Jose')], []);

    expect(sut.search([['jose', 'ramiro', 'nunez']], THRESHOLD)).toBeNull();
    expect(
      sut.search(
        [
          ['jose', 'ramiro', 'nunez'],
          ['jose', 'nunez'],
        ],
        THRESHOLD,
      ),
    ).toMatchObject({ entNum: 1, score: 1 });
  });

  it('finds nothing for an empty name', () => {
    const sut = OfacIndex.build([individual(1, 'NUNEZ, Jose')], []);

    expect(sut.search([[]], 0.01)).toBeNull();
    expect(sut.search([], 0.01)).toBeNull();
  });

  describe('gives the answer of a full scan', () => {
    const list = syntheticList(400);
    const sut = OfacIndex.build(list, []);
    const tokensOf = list.map((entry) => sdnNameTokens(entry.name));
    const variant = fc.tuple(fc.nat(tokensOf.length - 1), fc.array(edit(), { maxLength: 3 }), fc.boolean()).map(([n, edits, reversed]) => {
      const tokens = edits.reduce(applyEdit, [...tokensOf[n]]);
      return reversed ? tokens.reverse() : tokens;
    });

    it('for names edited from list names (typos, omissions, swaps, token order), with and without a dropped token', () => {
      fc.assert(
        fc.property(variant, fc.double({ min: 0.5, max: 1, noNaN: true }), fc.nat(3), (tokens, threshold, drop) => {
          const variants = drop < tokens.length && tokens.length > 1 ? [tokens, tokens.filter((_, i) => i !== drop)] : [tokens];
          expect(sut.search(variants, threshold)).toEqual(sut.scan(variants, threshold));
        }),
        { numRuns: 2000 },
      );
    });

    it('for made-up names', () => {
      fc.assert(
        fc.property(fc.array(syllableToken(), { minLength: 1, maxLength: 4 }), (tokens) => {
          expect(sut.search([tokens], THRESHOLD)).toEqual(sut.scan([tokens], THRESHOLD));
        }),
        { numRuns: 1000 },
      );
    });
  });
});

type Edit = { kind: 'delete' | 'insert' | 'substitute' | 'swap'; token: number; at: number; letter: string };

function edit(): fc.Arbitrary<Edit> {
  return fc.record({
    kind: fc.constantFrom<Edit['kind']>('delete', 'insert', 'substitute', 'swap'),
    token: fc.nat(5),
    at: fc.nat(20),
    letter: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
  });
}

function applyEdit(tokens: string[], { kind, token, at, letter }: Edit): string[] {
  const t = token % tokens.length;
  const word = tokens[t];
  const i = at % (word.length + 1);
  const edited = {
    delete: word.slice(0, i) + word.slice(i + 1),
    insert: word.slice(0, i) + letter + word.slice(i),
    substitute: word.slice(0, i) + letter + word.slice(i + 1),
    swap: word.slice(0, i) + word.slice(i + 1, i + 2) + word.slice(i, i + 1) + word.slice(i + 2),
  }[kind];
  return edited ? tokens.map((w, k) => (k === t ? edited : w)) : tokens;
}

function syllableToken(): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...SYLLABLES), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
}

/** A deterministic list of made-up "LAST, First Middle" names built from a few syllables, so tokens recur. */
function syntheticList(size: number): SdnRecord[] {
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const token = (): string => Array.from({ length: 1 + next(3) }, () => SYLLABLES[next(SYLLABLES.length)]).join('');
  return Array.from({ length: size }, (_, i) => {
    const given = Array.from({ length: 1 + next(2) }, token).join(' ');
    return individual(i + 1, `${token().toUpperCase()}, ${given}`);
  });
}
