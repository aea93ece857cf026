import { bestPairsScore, firstSound, lengthBound, pairSimilarity, PROFILE_SIZE, similarityUpperBound, writeLetterProfile } from './jaro-winkler';
import { sdnNameTokens } from './name-normalizer';
import { OfacMatch, OfacNameKind } from './ofac-match';
import { AltRecord, SdnRecord } from './sdn-csv.parser';

/** Distinct search tokens whose pair scores are memoised per screening (names rarely have more). */
const MEMO_WIDTH = 8;
const UNSET = 0;
const BOUND = 1;
const EXACT = 2;
/** Float slack for the bounds, so a rounding error never skips a name the full score would find. */
const EPSILON = 1e-9;

interface IndexedName {
  readonly entNum: number;
  readonly name: string;
  readonly kind: OfacNameKind;
  readonly tokens: Int32Array;
  readonly lengths: Int32Array;
  readonly longest: number;
}

export interface OfacListStats {
  /** SDN entries of type individual: the only ones screened. */
  readonly individuals: number;
  /** Entities, vessels and aircraft, left out. */
  readonly skippedEntries: number;
  /** Primary names and aliases indexed. */
  readonly names: number;
  readonly aliases: number;
  /** Distinct name tokens. */
  readonly tokens: number;
}

/** A screening's distinct search tokens (with letter profiles), and each name variant as indices into them. */
interface Query {
  readonly tokens: readonly string[];
  readonly sounds: Int32Array;
  readonly counts: Uint16Array;
  readonly masks: Int32Array;
  readonly variants: readonly Int32Array[];
  readonly variantLengths: readonly Int32Array[];
}

/**
 * The individuals of one SDN list, indexed so a screening scores few names yet finds exactly what
 * scoring every name would. A name's score is a length-weighted average of its token pairs' scores,
 * scaled down, so it never exceeds its best pair: a name holding no token that scores the threshold
 * against a search token cannot match. Tokens are bucketed by first sound (tokens of different
 * sounds are never paired) and length (a length ratio caps the score); within a bucket a letter-count
 * bound rules most tokens out before Jaro-Winkler runs. The names holding a qualifying token are then
 * bounded again by their own tokens, and only those still able to reach the threshold are scored.
 * Immutable once built, apart from per-screening scratch: a reload builds a new index and swaps it.
 */
export class OfacIndex {
  private readonly memoScore: Float64Array;
  private readonly memoKind: Uint8Array;
  private readonly memoStamp: Uint32Array;
  private readonly tokenStamp: Uint32Array;
  private readonly nameStamp: Uint32Array;
  private generation = 0;

  private constructor(
    private readonly names: readonly IndexedName[],
    private readonly vocabulary: Vocabulary,
    readonly stats: OfacListStats,
  ) {
    const size = vocabulary.tokens.length;
    this.memoScore = new Float64Array(size * MEMO_WIDTH);
    this.memoKind = new Uint8Array(size * MEMO_WIDTH);
    this.memoStamp = new Uint32Array(size * MEMO_WIDTH);
    this.tokenStamp = new Uint32Array(size);
    this.nameStamp = new Uint32Array(names.length);
  }

  static build(sdn: readonly SdnRecord[], alt: readonly AltRecord[]): OfacIndex {
    const builder = new IndexBuilder();
    const individuals = new Map<number, Set<string>>();
    for (const entry of sdn) {
      if (entry.type !== 'individual') continue;
      const seen = new Set<string>();
      individuals.set(entry.entNum, seen);
      builder.add(entry.entNum, entry.name, 'primary', seen);
    }
    let aliases = 0;
    for (const alias of alt) {
      const seen = individuals.get(alias.entNum);
      if (seen && builder.add(alias.entNum, alias.altName, 'alias', seen)) aliases++;
    }
    const { names, vocabulary } = builder.finish();
    const stats = { individuals: individuals.size, skippedEntries: sdn.length - individuals.size, names: names.length, aliases, tokens: vocabulary.tokens.length };
    return new OfacIndex(names, vocabulary, stats);
  }

  /** The best list name scoring at least `threshold` against any variant of the search name, or null. */
  search(variants: readonly (readonly string[])[], threshold: number): OfacMatch | null {
    const query = this.prepare(variants);
    if (query.tokens.length === 0) return null;
    return this.best(this.candidates(query, threshold), query, threshold, true);
  }

  /** The same answer from scoring every name: the reference the index is checked against (tests, bench). */
  scan(variants: readonly (readonly string[])[], threshold: number): OfacMatch | null {
    const query = this.prepare(variants);
    if (query.tokens.length === 0) return null;
    return this.best(this.names.keys(), query, threshold, false);
  }

  private prepare(variants: readonly (readonly string[])[]): Query {
    this.nextGeneration();
    const tokens: string[] = [];
    const indices = variants
      .filter((variant) => variant.length > 0)
      .map((variant) =>
        Int32Array.from(variant, (token) => {
          const at = tokens.indexOf(token);
          return at >= 0 ? at : tokens.push(token) - 1;
        }),
      );
    const counts = new Uint16Array(tokens.length * PROFILE_SIZE);
    const masks = Int32Array.from(tokens, (token, q) => writeLetterProfile(token, counts, q * PROFILE_SIZE));
    return {
      tokens,
      sounds: Int32Array.from(tokens, firstSound),
      counts,
      masks,
      variants: indices,
      variantLengths: indices.map((variant) => variant.map((q) => tokens[q].length)),
    };
  }

  /** The names holding a token that scores at least the threshold against some search token. */
  private candidates(query: Query, threshold: number): number[] {
    const { byLength } = this.vocabulary;
    const found: number[] = [];
    query.tokens.forEach((token, q) => {
      const buckets = byLength.get(query.sounds[q]);
      if (!buckets) return;
      for (let length = 1; length < buckets.length; length++) {
        if (lengthBound(token.length, length) < threshold - EPSILON) continue;
        for (const t of buckets[length]) {
          if (this.tokenStamp[t] === this.generation || this.upperBound(query, q, t) < threshold - EPSILON) continue;
          if (this.pairExact(query, q, t) < threshold) continue;
          this.tokenStamp[t] = this.generation;
          for (const n of this.vocabulary.postings[t]) {
            if (this.nameStamp[n] === this.generation) continue;
            this.nameStamp[n] = this.generation;
            found.push(n);
          }
        }
      }
    });
    return found;
  }

  private best(candidates: Iterable<number>, query: Query, threshold: number, prune: boolean): OfacMatch | null {
    let best: IndexedName | undefined;
    let bestScore = 0;
    let nameTokens: Int32Array = new Int32Array(0);
    let variant = 0;
    // One closure per screening; the loop below moves what it reads.
    const pair = (s: number, x: number): number => this.pairExact(query, query.variants[variant][s], nameTokens[x]);
    for (const n of candidates) {
      const name = this.names[n];
      nameTokens = name.tokens;
      let score = 0;
      for (variant = 0; variant < query.variants.length; variant++) {
        if (prune && !this.canReach(query, query.variants[variant], query.variantLengths[variant], name, threshold)) continue;
        score = Math.max(score, bestPairsScore(query.variantLengths[variant], name.lengths, pair));
      }
      if (score >= threshold && isBetter(name, score, best, bestScore)) {
        best = name;
        bestScore = score;
      }
    }
    return best ? { entNum: best.entNum, matchedName: best.name, score: Math.round(bestScore * 1e4) / 1e4, kind: best.kind } : null;
  }

  /**
   * False when the name cannot score the threshold. The score is at least the threshold only if,
   * summed over search tokens, (pair score - threshold) x (pair length) - threshold x (length of a
   * search token left unpaired) is at least 0; each search token's term is bounded by its best
   * possible pair, ignoring that a list token pairs once.
   */
  private canReach(query: Query, variant: Int32Array, lengths: Int32Array, name: IndexedName, threshold: number): boolean {
    // Most names fail on one search token by far: stop once even perfect pairs for the rest cannot make up for it.
    let surplusLeft = 0;
    for (let s = 0; s < variant.length; s++) surplusLeft += (1 - threshold) * (lengths[s] + name.longest);
    let sum = 0;
    for (let s = 0; s < variant.length; s++) {
      const q = variant[s];
      let term = -threshold * lengths[s];
      for (let x = 0; x < name.tokens.length; x++) {
        const bound = this.pairBound(query, q, name.tokens[x]);
        if (bound >= 0) term = Math.max(term, (bound - threshold) * (lengths[s] + name.lengths[x]));
      }
      sum += term;
      surplusLeft -= (1 - threshold) * (lengths[s] + name.longest);
      if (sum + surplusLeft < -EPSILON) return false;
    }
    return true;
  }

  /** Search token `q` against list token `t`: the exact pair score, or -1 for tokens of different sounds. */
  private pairExact(query: Query, q: number, t: number): number {
    const key = t * MEMO_WIDTH + q;
    if (q < MEMO_WIDTH && this.memoStamp[key] === this.generation && this.memoKind[key] === EXACT) return this.memoScore[key];
    const score = pairSimilarity(this.vocabulary.tokens[t], query.tokens[q]);
    if (q < MEMO_WIDTH) this.remember(key, score, EXACT);
    return score;
  }

  /** An upper bound of pairExact (the exact score once known), -1 alike. */
  private pairBound(query: Query, q: number, t: number): number {
    const key = t * MEMO_WIDTH + q;
    if (q < MEMO_WIDTH && this.memoStamp[key] === this.generation && this.memoKind[key] !== UNSET) return this.memoScore[key];
    const bound = this.vocabulary.sounds[t] !== query.sounds[q] ? -1 : this.upperBound(query, q, t);
    if (q < MEMO_WIDTH) this.remember(key, bound, BOUND);
    return bound;
  }

  /** similarityUpperBound of two tokens of the same first sound, not memoised: most are looked at once. */
  private upperBound(query: Query, q: number, t: number): number {
    const { tokens, counts, masks } = this.vocabulary;
    return similarityUpperBound(query.tokens[q], query.counts, q * PROFILE_SIZE, query.masks[q], tokens[t], counts, t * PROFILE_SIZE, masks[t]);
  }

  private remember(key: number, score: number, kind: number): void {
    this.memoStamp[key] = this.generation;
    this.memoScore[key] = score;
    this.memoKind[key] = kind;
  }

  private nextGeneration(): void {
    if (this.generation === 0xffffffff) {
      this.memoStamp.fill(0);
      this.tokenStamp.fill(0);
      this.nameStamp.fill(0);
      this.generation = 0;
    }
    this.generation++;
  }
}

function isBetter(name: IndexedName, score: number, best: IndexedName | undefined, bestScore: number): boolean {
  if (!best || score !== bestScore) return !best || score > bestScore;
  if (name.kind !== best.kind) return name.kind === 'primary';
  return name.entNum < best.entNum;
}

/** The distinct tokens of the list's names, with what the bounds need, and the names holding each. */
interface Vocabulary {
  readonly tokens: readonly string[];
  readonly sounds: Int32Array;
  readonly counts: Uint16Array;
  readonly masks: Int32Array;
  readonly postings: readonly Int32Array[];
  /** Token ids by first sound, then by length. */
  readonly byLength: ReadonlyMap<number, readonly Int32Array[]>;
}

class IndexBuilder {
  private readonly names: IndexedName[] = [];
  private readonly tokens: string[] = [];
  private readonly tokenIds = new Map<string, number>();
  private readonly postings: number[][] = [];

  /** Adds a name unless the entry already has one with the same tokens; false when skipped. */
  add(entNum: number, name: string, kind: OfacNameKind, seen: Set<string>): boolean {
    const words = sdnNameTokens(name);
    const key = [...words].sort().join(' ');
    if (words.length === 0 || seen.has(key)) return false;
    seen.add(key);
    const n = this.names.length;
    const tokens = Int32Array.from(words, (word) => this.tokenId(word));
    for (const t of new Set(tokens)) this.postings[t].push(n);
    const lengths = Int32Array.from(words, (word) => word.length);
    this.names.push({ entNum, name, kind, tokens, lengths, longest: Math.max(...lengths) });
    return true;
  }

  finish(): { names: IndexedName[]; vocabulary: Vocabulary } {
    const tokens = this.tokens;
    const counts = new Uint16Array(tokens.length * PROFILE_SIZE);
    const masks = Int32Array.from(tokens, (token, t) => writeLetterProfile(token, counts, t * PROFILE_SIZE));
    const sounds = Int32Array.from(tokens, firstSound);
    const grouped = new Map<number, number[][]>();
    tokens.forEach((token, t) => {
      const byLength = grouped.get(sounds[t]) ?? [];
      grouped.set(sounds[t], byLength);
      while (byLength.length <= token.length) byLength.push([]);
      byLength[token.length].push(t);
    });
    const byLength = new Map([...grouped].map(([sound, lists]) => [sound, lists.map((list) => Int32Array.from(list))]));
    const postings = this.postings.map((list) => Int32Array.from(list));
    return { names: this.names, vocabulary: { tokens, sounds, counts, masks, postings, byLength } };
  }

  private tokenId(token: string): number {
    let id = this.tokenIds.get(token);
    if (id === undefined) {
      id = this.tokens.push(token) - 1;
      this.tokenIds.set(token, id);
      this.postings.push([]);
    }
    return id;
  }
}
