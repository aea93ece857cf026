import { firstSound, PROFILE_SIZE, writeLetterProfile } from './jaro-winkler';
import { sdnNameTokens } from './name-normalizer';
import { OfacNameKind } from './ofac-match';

/** One list name: an individual's primary name or an alias, as token ids into the vocabulary. */
export interface IndexedName {
  readonly entNum: number;
  readonly name: string;
  readonly kind: OfacNameKind;
  readonly tokens: Int32Array;
  readonly lengths: Int32Array;
  readonly longest: number;
}

/** The distinct tokens of the list's names, with what the bounds need, and the names holding each. */
export interface Vocabulary {
  readonly tokens: readonly string[];
  readonly tokenIds: ReadonlyMap<string, number>;
  readonly sounds: Int32Array;
  readonly counts: Uint16Array;
  readonly masks: Int32Array;
  readonly postings: readonly Int32Array[];
  /** Token ids by first sound, then by length. */
  readonly byLength: ReadonlyMap<number, readonly Int32Array[]>;
}

/** Collects names and their tokens, then freezes them into typed arrays. */
export class IndexBuilder {
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
    return { names: this.names, vocabulary: { tokens, tokenIds: this.tokenIds, sounds, counts, masks, postings, byLength } };
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
