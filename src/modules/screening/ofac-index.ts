import { bestPairsScore, firstSound, lengthBound, pairSimilarity, PROFILE_SIZE, similarityUpperBound, writeLetterProfile } from './jaro-winkler';
import { OfacMatch } from './ofac-match';
import { IndexBuilder, IndexedName, Vocabulary } from './ofac-vocabulary';
import { AltRecord, SdnRecord } from './sdn-csv.parser';

/** Distinct search tokens whose pair scores are memoised per screening (names rarely have more). */
const MEMO_WIDTH = 8;
const UNSET = 0;
const BOUND = 1;
const EXACT = 2;
/** Candidate names few enough that looking for a more selective search token would cost more than scoring them. */
const FEW_NAMES = 64;
/** Float slack for the bounds, so a rounding error never skips a name the full score would find. */
const EPSILON = 1e-9;

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
 * The individuals of one SDN list, indexed so that a screening scores few names yet answers exactly
 * what scoring every name would (the property spec and the bench check it against `scan`). The
 * score is a length-weighted average of token-pair scores, so bounds on pair scores bound it:
 * - tokens of different first sounds are never paired, and a length ratio caps a pair's score, so
 *   the list tokens that can pair well with a search token lie in a few (sound, length) buckets,
 *   where a letter-count bound rules most out before Jaro-Winkler runs;
 * - a search token too long to be left unpaired must pair with a list token close enough to it for
 *   the other search tokens, with the best pairs the list has for them, to make up the difference:
 *   the names holding such a token are the only candidates (canReach gives the sum);
 * - each candidate is bounded again with its own tokens, and only those left are scored.
 * Immutable once built, apart from per-screening scratch: a reload builds a new index and swaps it.
 */
export class OfacIndex {
  private readonly memoScore: Float64Array;
  private readonly memoKind: Uint8Array;
  private readonly memoStamp: Uint32Array;
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
    const stats = {
      individuals: individuals.size,
      skippedEntries: sdn.length - individuals.size,
      names: names.length,
      aliases,
      tokens: vocabulary.tokens.length,
    };
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

  /**
   * The names that may reach the threshold under some variant of the search name. In canReach's
   * sum a search token adds at most its surplus: its best (pair score - threshold) x (pair length)
   * over the list tokens at the threshold, 0 without one. A search token whose unpaired term
   * (-threshold x its length) is more than the others' surplus can make up is required, and only
   * names holding one of its near tokens can match. Without a required token, a name needs a
   * token pair at the threshold (its best pair bounds its score).
   */
  private candidates(query: Query, threshold: number): number[] {
    const atThreshold = query.tokens.map((_, q) => this.nearTokens(query, q, threshold, 0));
    const surplus = atThreshold.map((near, q) =>
      near.reduce((max, t) => Math.max(max, (this.pairExact(query, q, t) - threshold) * (query.tokens[q].length + this.vocabulary.tokens[t].length)), 0),
    );
    const found: number[] = [];
    query.variants.forEach((variant, v) => {
      const lengths = query.variantLengths[v];
      const total = variant.reduce((sum, q) => sum + surplus[q], 0);
      // Any required token gives all the candidates. Try the rarest as spelled first, and the next
      // ones while the names found are many (its close tokens may be common ones).
      const required = [...variant.keys()]
        .filter((s) => threshold * lengths[s] > total - surplus[variant[s]] + EPSILON)
        .sort((a, b) => this.spelledCount(query.tokens[variant[a]]) - this.spelledCount(query.tokens[variant[b]]) || lengths[b] - lengths[a]);
      let near: number[] | undefined;
      let names = Infinity;
      for (const s of required) {
        if (names <= FEW_NAMES) break;
        const slack = total - surplus[variant[s]];
        const tokens = slack === 0 ? atThreshold[variant[s]] : this.nearTokens(query, variant[s], threshold, slack);
        const count = tokens.reduce((sum, t) => sum + this.vocabulary.postings[t].length, 0);
        if (count < names) [near, names] = [tokens, count];
      }
      for (const t of near ?? [...variant].flatMap((q) => atThreshold[q])) {
        for (const n of this.vocabulary.postings[t]) {
          if (this.nameStamp[n] === this.generation) continue;
          this.nameStamp[n] = this.generation;
          found.push(n);
        }
      }
    });
    return found;
  }

  /**
   * The list tokens t with (score(q, t) - threshold) x (length of q + length of t) >= -slack, from
   * a scan of the buckets of q's first sound and of the lengths that can score that much.
   */
  private nearTokens(query: Query, q: number, threshold: number, slack: number): number[] {
    const near: number[] = [];
    const { tokens, counts, masks, byLength } = this.vocabulary;
    const buckets = byLength.get(query.sounds[q]);
    if (!buckets) return near;
    const token = query.tokens[q];
    const offset = q * PROFILE_SIZE;
    const mask = query.masks[q];
    for (let other = 1; other < buckets.length; other++) {
      const floor = threshold - slack / (token.length + other) - EPSILON;
      if (lengthBound(token.length, other) < floor) continue;
      const bucket = buckets[other];
      for (let i = 0; i < bucket.length; i++) {
        const t = bucket[i];
        const bound = similarityUpperBound(token, query.counts, offset, mask, tokens[t], counts, t * PROFILE_SIZE, masks[t]);
        if (bound >= floor && this.pairExact(query, q, t) >= floor) near.push(t);
      }
    }
    return near;
  }

  /** How many list names hold the token as spelled. */
  private spelledCount(token: string): number {
    const t = this.vocabulary.tokenIds.get(token);
    return t === undefined ? 0 : this.vocabulary.postings[t].length;
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
    const { tokens, sounds, counts, masks } = this.vocabulary;
    const bound =
      sounds[t] !== query.sounds[q]
        ? -1
        : similarityUpperBound(query.tokens[q], query.counts, q * PROFILE_SIZE, query.masks[q], tokens[t], counts, t * PROFILE_SIZE, masks[t]);
    if (q < MEMO_WIDTH) this.remember(key, bound, BOUND);
    return bound;
  }

  private remember(key: number, score: number, kind: number): void {
    this.memoStamp[key] = this.generation;
    this.memoScore[key] = score;
    this.memoKind[key] = kind;
  }

  private nextGeneration(): void {
    if (this.generation === 0xffffffff) {
      this.memoStamp.fill(0);
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
