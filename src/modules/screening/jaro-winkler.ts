/*
 * Jaro-Winkler and the token-pair name score of moov-io/watchman (internal/stringscore:
 * customJaroWinkler, BestPairsJaroWinkler), reimplemented. Written here rather than taken from npm:
 * the packages there give plain Jaro-Winkler only, while watchman's score adds its boost threshold,
 * length and first-sound penalties and the best-pairs weighting; and this is the inner loop of every
 * screening, so it reuses its buffers instead of allocating per call.
 */

/** Winkler's prefix bonus applies only above this Jaro similarity (watchman's JARO_WINKLER_BOOST_THRESHOLD). */
const BOOST_THRESHOLD = 0.7;
const PREFIX_SIZE = 4;
const PREFIX_SCALE = 0.1;
/** Tokens whose lengths differ more than this ratio are penalised: Jaro-Winkler forgives it too easily. */
const LENGTH_CUTOFF = 0.9;
const LENGTH_PENALTY_WEIGHT = 0.3;
/** Tokens starting with different sounds (Smith, Jones) are scaled down. */
const DIFFERENT_SOUND_PENALTY = 0.9;
/** A share of the list name left unmatched costs this weight, so "John Doe" ranks "John Bartholomew Doe" lower. */
const UNMATCHED_INDEX_PENALTY_WEIGHT = 0.15;

let matchedA = new Uint8Array(32);
let matchedB = new Uint8Array(32);

/** Per ASCII letter, the positions of `b` holding it, as bits; cleared after each use. */
const positions = new Int32Array(128);

export function jaro(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  if (la === 0 && lb === 0) return 1;
  if (la === 0 || lb === 0) return 0;
  const fast = la < 32 && lb < 32 ? bitParallelJaro(a, b) : -1;
  return fast >= 0 ? fast : scanningJaro(a, b);
}

/**
 * Jaro with the positions of `b` as bit masks, for the usual name token (ASCII, under 32 letters):
 * each letter of `a` takes the lowest free position of its letter in its window, as the scan does.
 * -1 when `b` is not ASCII, for the scan to answer.
 */
function bitParallelJaro(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  for (let j = 0; j < lb; j++) {
    const code = b.charCodeAt(j);
    if (code >= 128) {
      for (let k = 0; k < j; k++) positions[b.charCodeAt(k)] = 0;
      return -1;
    }
    positions[code] |= 1 << j;
  }
  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  let takenA = 0;
  let takenB = 0;
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const code = a.charCodeAt(i);
    if (code >= 128) continue;
    const low = Math.max(0, i - window);
    const high = Math.min(lb - 1, i + window);
    const inWindow = ((1 << (high + 1)) - 1) & ~((1 << low) - 1);
    const free = positions[code] & inWindow & ~takenB;
    if (free !== 0) {
      takenB |= free & -free;
      takenA |= 1 << i;
      matches++;
    }
  }
  let unaligned = 0;
  for (let rest = takenB, i = 0; rest !== 0; i++) {
    if ((takenA & (1 << i)) === 0) continue;
    const j = 31 - Math.clz32(rest & -rest);
    rest &= rest - 1;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) unaligned++;
  }
  for (let j = 0; j < lb; j++) positions[b.charCodeAt(j)] = 0;
  if (matches === 0) return 0;
  return (matches / la + matches / lb + (matches - (unaligned >> 1)) / matches) / 3;
}

function scanningJaro(a: string, b: string): number {
  const la = a.length;
  const lb = b.length;
  if (la > matchedA.length) matchedA = new Uint8Array(la * 2);
  if (lb > matchedB.length) matchedB = new Uint8Array(lb * 2);
  matchedA.fill(0, 0, la);
  matchedB.fill(0, 0, lb);

  // Never negative: smetrics' window of -1 for one-letter tokens scores "a" against "a" as 0.
  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const code = a.charCodeAt(i);
    const end = Math.min(lb - 1, i + window);
    for (let j = Math.max(0, i - window); j <= end; j++) {
      if (matchedB[j] === 0 && b.charCodeAt(j) === code) {
        matchedA[i] = 1;
        matchedB[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;

  let unaligned = 0;
  for (let i = 0, j = 0; i < la; i++) {
    if (matchedA[i] === 0) continue;
    while (matchedB[j] === 0) j++;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) unaligned++;
    j++;
  }
  // Whole transpositions, as watchman's smetrics counts them.
  const transpositions = unaligned >> 1;
  return (matches / la + matches / lb + (matches - transpositions) / matches) / 3;
}

export function jaroWinkler(a: string, b: string): number {
  const similarity = jaro(a, b);
  if (similarity <= BOOST_THRESHOLD) return similarity;
  const limit = Math.min(PREFIX_SIZE, a.length, b.length);
  let prefix = 0;
  while (prefix < limit && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return similarity + PREFIX_SCALE * prefix * (1 - similarity);
}

/** Watchman's first-letter sound classes (a reduced Soundex): Catherine and Katherine start alike. */
const SOUND_CLASS = (() => {
  const classes = new Int32Array(128).map((_, code) => code);
  const groups = ['aeiouy', 'bfpv', 'cgjkqsxz', 'dt', 'l', 'mn', 'r', 'hw'];
  for (const group of groups) for (const letter of group) classes[letter.charCodeAt(0)] = group.charCodeAt(0);
  return classes;
})();

/** The sound class of a token's first letter (tokens are lower case); -1 for an empty token. */
export function firstSound(token: string): number {
  if (token.length === 0) return -1;
  const code = token.charCodeAt(0);
  return code < 128 ? SOUND_CLASS[code] : code;
}

/** Watchman's customJaroWinkler: Jaro-Winkler with the length and first-sound penalties. */
export function tokenSimilarity(indexed: string, search: string): number {
  const shorter = Math.min(indexed.length, search.length);
  const longer = Math.max(indexed.length, search.length);
  let score = jaroWinkler(indexed, search) * lengthFactor(longer === 0 ? 1 : shorter / longer);
  if (shorter > 0 && firstSound(indexed) !== firstSound(search)) score *= DIFFERENT_SOUND_PENALTY;
  return score;
}

/** 1 for a perfect metric, falling linearly by `weight` as the metric falls to 0. */
function scalingFactor(metric: number, weight: number): number {
  return 1 - (1 - metric) * weight;
}

let pairScores = new Float64Array(64);
let pairSearch = new Int32Array(64);
let pairIndexed = new Int32Array(64);
let searchUsed = new Uint8Array(16);
let indexedUsed = new Uint8Array(16);

/**
 * Watchman's BestPairsJaroWinkler over token lengths and a pair scorer (so a caller can memoise
 * pair scores). Every search token takes its best still-unpaired list token, best pairs first; the
 * pair scores are averaged weighted by the pair's length, over the search name's length plus the
 * paired list tokens' length (an unpaired search token counts as 0); the list name's unpaired share
 * scales the result down a little. `pairScore` returns a negative number for a pair not compared
 * (different first sounds) and must not call this function itself.
 */
export function bestPairsScore(
  searchLengths: ArrayLike<number>,
  indexedLengths: ArrayLike<number>,
  pairScore: (searchToken: number, indexedToken: number) => number,
): number {
  const searchCount = searchLengths.length;
  const indexedCount = indexedLengths.length;
  const capacity = searchCount * indexedCount;
  if (capacity > pairScores.length) {
    pairScores = new Float64Array(capacity * 2);
    pairSearch = new Int32Array(capacity * 2);
    pairIndexed = new Int32Array(capacity * 2);
  }
  if (searchCount > searchUsed.length) searchUsed = new Uint8Array(searchCount * 2);
  if (indexedCount > indexedUsed.length) indexedUsed = new Uint8Array(indexedCount * 2);

  let pairs = 0;
  for (let s = 0; s < searchCount; s++) {
    for (let x = 0; x < indexedCount; x++) {
      const score = pairScore(s, x);
      if (score < 0) continue;
      // Insertion into the descending list: a name has a handful of tokens.
      let at = pairs++;
      while (at > 0 && pairScores[at - 1] < score) {
        pairScores[at] = pairScores[at - 1];
        pairSearch[at] = pairSearch[at - 1];
        pairIndexed[at] = pairIndexed[at - 1];
        at--;
      }
      pairScores[at] = score;
      pairSearch[at] = s;
      pairIndexed[at] = x;
    }
  }

  searchUsed.fill(0, 0, searchCount);
  indexedUsed.fill(0, 0, indexedCount);
  let weighted = 0;
  let pairedIndexedLength = 0;
  for (let p = 0; p < pairs; p++) {
    const s = pairSearch[p];
    const x = pairIndexed[p];
    if (searchUsed[s] === 1 || indexedUsed[x] === 1) continue;
    searchUsed[s] = 1;
    indexedUsed[x] = 1;
    const indexedLength = indexedLengths[x];
    weighted += pairScores[p] * (searchLengths[s] + indexedLength);
    pairedIndexedLength += indexedLength;
  }

  const searchLength = sum(searchLengths);
  const indexedLength = sum(indexedLengths);
  const denominator = searchLength + pairedIndexedLength;
  const average = denominator === 0 ? 0 : weighted / denominator;
  const pairedShare = indexedLength === 0 ? 0 : pairedIndexedLength / indexedLength;
  return average * scalingFactor(pairedShare, UNMATCHED_INDEX_PENALTY_WEIGHT);
}

/** The name score of a search name against a list name, both as tokens. */
export function bestPairsJaroWinkler(search: readonly string[], indexed: readonly string[]): number {
  return bestPairsScore(
    search.map((token) => token.length),
    indexed.map((token) => token.length),
    (s, x) => pairSimilarity(indexed[x], search[s]),
  );
}

/** A pair's score, or -1 when watchman would not compare it (first letters of different sounds). */
export function pairSimilarity(indexed: string, search: string): number {
  return firstSound(indexed) === firstSound(search) ? tokenSimilarity(indexed, search) : -1;
}

function sum(values: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
}

/*
 * Upper bounds of tokenSimilarity, cheap enough to test every list token of a bucket, so the index
 * can skip tokens and names without losing any the full score would find.
 */

/** Letter counts are kept in 32 buckets (a-z, digits, the rest folded): merging letters only loosens the bound. */
export const PROFILE_SIZE = 32;

function letterBucket(code: number): number {
  if (code >= 97 && code <= 122) return code - 97;
  if (code >= 48 && code <= 57) return 26;
  return 27 + (code % 5);
}

/** Writes the token's letter counts at `offset` of `counts`; returns the mask of buckets used. */
export function writeLetterProfile(token: string, counts: Uint16Array, offset: number): number {
  let mask = 0;
  for (let i = 0; i < token.length; i++) {
    const bucket = letterBucket(token.charCodeAt(i));
    counts[offset + bucket]++;
    mask |= 1 << bucket;
  }
  return mask;
}

/** The highest tokenSimilarity of two tokens of these lengths: all of the shorter matching, in order. */
export function lengthBound(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  const ratio = Math.min(a, b) / Math.max(a, b);
  const jaroBound = (2 + ratio) / 3;
  return (jaroBound + PREFIX_SIZE * PREFIX_SCALE * (1 - jaroBound)) * lengthFactor(ratio);
}

/**
 * An upper bound of tokenSimilarity for two tokens of the same first sound: Jaro's matches cannot
 * exceed the letters they share (counted with repeats), transpositions only lower it, and the
 * prefix bonus and length penalty are exact.
 */
export function similarityUpperBound(
  a: string,
  aCounts: Uint16Array,
  aOffset: number,
  aMask: number,
  b: string,
  bCounts: Uint16Array,
  bOffset: number,
  bMask: number,
): number {
  let shared = aMask & bMask;
  let matches = 0;
  while (shared !== 0) {
    const bucket = 31 - Math.clz32(shared & -shared);
    matches += Math.min(aCounts[aOffset + bucket], bCounts[bOffset + bucket]);
    shared &= shared - 1;
  }
  if (matches === 0) return 0;
  const jaroBound = (matches / a.length + matches / b.length + 1) / 3;
  const limit = Math.min(PREFIX_SIZE, a.length, b.length);
  let prefix = 0;
  while (prefix < limit && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  const ratio = Math.min(a.length, b.length) / Math.max(a.length, b.length);
  return (jaroBound + PREFIX_SCALE * prefix * (1 - jaroBound)) * lengthFactor(ratio);
}

function lengthFactor(ratio: number): number {
  return ratio < LENGTH_CUTOFF ? scalingFactor(ratio, LENGTH_PENALTY_WEIGHT) : 1;
}
