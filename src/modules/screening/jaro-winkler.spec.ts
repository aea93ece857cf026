import fc from 'fast-check';
import {
  bestPairsJaroWinkler,
  firstSound,
  jaro,
  jaroWinkler,
  lengthBound,
  PROFILE_SIZE,
  similarityUpperBound,
  tokenSimilarity,
  writeLetterProfile,
} from './jaro-winkler';

describe(jaro.name, () => {
  it.each([
    ['martha', 'marhta', 0.9444],
    ['dwayne', 'duane', 0.8222],
    ['dixon', 'dicksonx', 0.7667],
    ['crate', 'trace', 0.7333],
    ['abc', 'xyz', 0],
    ['a', 'a', 1],
    ['', '', 1],
    ['abc', '', 0],
  ])('%s ~ %s = %d', (a, b, expected) => {
    expect(jaro(a, b)).toBeCloseTo(expected, 4);
    expect(jaro(b, a)).toBeCloseTo(expected, 4);
  });
});

/** Jaro as textbooks write it (smetrics' whole transpositions), to check the fast paths against. */
function referenceJaro(a: string, b: string): number {
  if (a.length === 0 && b.length === 0) return 1;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const takenA: boolean[] = [];
  const takenB: boolean[] = [];
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = Math.max(0, i - window); j <= Math.min(b.length - 1, i + window); j++) {
      if (!takenB[j] && a[i] === b[j]) {
        takenA[i] = takenB[j] = true;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  const fromB = [...b].filter((_, j) => takenB[j]);
  const unaligned = [...a].filter((_, i) => takenA[i]).filter((letter, k) => letter !== fromB[k]).length;
  return (matches / a.length + matches / b.length + (matches - Math.floor(unaligned / 2)) / matches) / 3;
}

describe('jaro against the textbook', () => {
  it('agrees for short and long, ASCII and accented tokens', () => {
    const token = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'abcdeé'), maxLength: 12 }),
      fc.string({ unit: fc.constantFrom(...'ab'), minLength: 28, maxLength: 40 }),
    );
    fc.assert(
      fc.property(token, token, (a, b) => {
        expect(jaro(a, b)).toBeCloseTo(referenceJaro(a, b), 12);
      }),
      { numRuns: 20000 },
    );
  });
});

describe(jaroWinkler.name, () => {
  it.each([
    ['martha', 'marhta', 0.9611],
    ['dwayne', 'duane', 0.84],
    ['dixon', 'dicksonx', 0.8133],
    ['jellyfish', 'smellyfish', 0.8963],
    ['nunez', 'nunez', 1],
  ])('%s ~ %s = %d (the textbook values)', (a, b, expected) => {
    expect(jaroWinkler(a, b)).toBeCloseTo(expected, 4);
  });

  it('adds no prefix bonus at or below a Jaro similarity of 0.7', () => {
    expect(jaro('abcd', 'abxy')).toBeCloseTo(0.6667, 4);
    expect(jaroWinkler('abcd', 'abxy')).toBe(jaro('abcd', 'abxy'));
  });

  it('reuses its buffers for tokens longer than the first ones', () => {
    const long = 'a'.repeat(200);

    expect(jaroWinkler(long, `${long}b`)).toBeGreaterThan(0.99);
    expect(jaroWinkler('martha', 'marhta')).toBeCloseTo(0.9611, 4);
  });
});

describe(tokenSimilarity.name, () => {
  it('penalises tokens of different lengths (jon ~ john: 0.9333 × 0.925)', () => {
    expect(tokenSimilarity('john', 'jon')).toBeCloseTo(0.8633, 4);
  });

  it('penalises tokens that start with different sounds, not spellings of one sound', () => {
    expect(firstSound('catherine')).toBe(firstSound('katherine'));
    expect(tokenSimilarity('katherine', 'catherine')).toBeCloseTo(jaroWinkler('katherine', 'catherine'), 10);
    expect(tokenSimilarity('smith', 'jones')).toBeCloseTo(jaroWinkler('smith', 'jones') * 0.9, 10);
  });
});

describe(bestPairsJaroWinkler.name, () => {
  it('does not depend on token order ("LAST, First" matches "First Last")', () => {
    expect(bestPairsJaroWinkler(['john', 'smith'], ['smith', 'john'])).toBe(1);
  });

  it('scores a one-letter variant high, weighted by length', () => {
    // (0.8633 × (3 + 4) + 1 × (5 + 5)) / (8 + 9)
    expect(bestPairsJaroWinkler(['jon', 'smith'], ['john', 'smith'])).toBeCloseTo(0.9437, 4);
  });

  it('scales down for the part of the list name left unmatched', () => {
    // 1 − (11/18 unmatched) × 0.15
    expect(bestPairsJaroWinkler(['john', 'doe'], ['john', 'bartholomew', 'doe'])).toBeCloseTo(0.9083, 4);
  });

  it('counts a search token left without a pair as 0', () => {
    expect(bestPairsJaroWinkler(['john', 'quincy', 'smith'], ['john', 'smith'])).toBeCloseTo(18 / 24, 10);
  });

  it('pairs each list token at most once', () => {
    expect(bestPairsJaroWinkler(['john', 'john'], ['john'])).toBeCloseTo(8 / 12, 10);
  });

  it('is 0 for names with nothing in common, and for an empty name', () => {
    expect(bestPairsJaroWinkler(['abc'], ['xyz'])).toBe(0);
    expect(bestPairsJaroWinkler([], ['john'])).toBe(0);
  });
});

describe(similarityUpperBound.name, () => {
  const bound = (a: string, b: string): number => {
    const counts = new Uint16Array(2 * PROFILE_SIZE);
    const aMask = writeLetterProfile(a, counts, 0);
    const bMask = writeLetterProfile(b, counts, PROFILE_SIZE);
    return similarityUpperBound(a, counts, 0, aMask, b, counts, PROFILE_SIZE, bMask);
  };
  // Few letters, so that tokens share many, plus one outside a-z folded into a shared bucket.
  const token = fc.string({ unit: fc.constantFrom(...'abcdeé9'), minLength: 1, maxLength: 14 });

  it('is never below the score, nor is the length bound', () => {
    fc.assert(
      fc.property(token, token, (a, b) => {
        const score = tokenSimilarity(a, b);
        expect(bound(a, b)).toBeGreaterThanOrEqual(score - 1e-12);
        expect(lengthBound(a.length, b.length)).toBeGreaterThanOrEqual(score - 1e-12);
      }),
      { numRuns: 20000 },
    );
  });

  it('is exact for tokens with the same letters in the same order', () => {
    expect(bound('nunez', 'nunez')).toBe(1);
    expect(bound('abc', 'xyz')).toBe(0);
  });
});
