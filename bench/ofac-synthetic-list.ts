/**
 * A made-up SDN list of the real one's size, written in Treasury's legacy CSV format (CRLF, `-0- `
 * empties, quoted "LAST, First Middle" names, trailing Ctrl-Z), and enrollee names to screen
 * against it. Names are built from syllables with a skewed frequency, so that, as in the real list,
 * a few given names and particles recur in thousands of entries while most surnames are rare.
 * Seeded: the same settings give the same files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SyntheticListSettings {
  readonly individuals: number;
  readonly entities: number;
  readonly vessels: number;
  readonly aircraft: number;
  /** Aliases of individuals (screened) and of the other entries (not screened). */
  readonly individualAliases: number;
  readonly otherAliases: number;
  readonly seed: number;
}

/** The SDN list's size in 2025, rounded: ~18,000 entries, ~20,000 aliases. */
export const REAL_LIST_SIZE: SyntheticListSettings = {
  individuals: 8_000,
  entities: 8_600,
  vessels: 1_100,
  aircraft: 300,
  individualAliases: 12_000,
  otherAliases: 8_000,
  seed: 20_250,
};

export interface EnrolleeName {
  readonly firstName: string;
  readonly middleName?: string;
  readonly lastName: string;
  /** What the name was made as: a list name (as listed, an alias, edited, accented) or a made-up one. */
  readonly kind: 'primary' | 'alias' | 'typo' | 'accented' | 'made-up';
}

interface Person {
  readonly given: string[];
  readonly surname: string[];
}

const EMPTY = '-0- ';
const ONSETS = ['b', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'dr', 'kh', 'sh', 'st', 'tr', 'zh', ''];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'a', 'e', 'ai', 'ou', 'ia'];
const CODAS = ['', '', '', 'n', 'r', 'l', 's', 'm', 'd', 'k', 'v', 'sh'];
const PARTICLES = ['al', 'el', 'bin', 'abu', 'de', 'van', 'ibn', 'da'];
const ACCENTS: Readonly<Record<string, string>> = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ü', n: 'ñ', s: 'š', z: 'ž', c: 'ç' };

export class SyntheticSdnList {
  private state: number;
  private readonly givenPool: string[];
  private readonly surnamePool: string[];
  readonly people: { entNum: number; primary: Person; aliases: Person[] }[] = [];

  constructor(private readonly settings: SyntheticListSettings) {
    this.state = settings.seed >>> 0 || 1;
    this.givenPool = this.pool(1_500, 2, 3);
    this.surnamePool = this.pool(20_000, 2, 4);
  }

  /** Writes `sdn.csv` and `alt.csv` into `dir`; returns the number of SDN rows and alias rows. */
  write(dir: string): { sdnRows: number; altRows: number } {
    const { individuals, entities, vessels, aircraft, individualAliases, otherAliases } = this.settings;
    const sdn: string[] = [];
    const alt: string[] = [];
    let entNum = 10_000;
    let altNum = 50_000;
    for (let i = 0; i < individuals; i++) {
      const primary = this.person();
      this.people.push({ entNum: ++entNum, primary, aliases: [] });
      sdn.push(sdnRow(entNum, listName(primary), 'individual', `DOB ${1940 + this.int(60)}; nationality Nowhere.`));
    }
    const others: number[] = [];
    for (const [count, type] of [
      [entities, EMPTY],
      [vessels, 'vessel'],
      [aircraft, 'aircraft'],
    ] as const) {
      for (let i = 0; i < count; i++) {
        others.push(++entNum);
        sdn.push(sdnRow(entNum, this.entityName(), type, 'Registration ID 0000 (Nowhere).'));
      }
    }
    for (let i = 0; i < individualAliases; i++) {
      const person = this.people[this.skewed(this.people.length)];
      const alias = this.chance(0.6) ? this.variant(person.primary) : this.person();
      person.aliases.push(alias);
      alt.push(altRow(person.entNum, ++altNum, listName(alias)));
    }
    for (let i = 0; i < otherAliases; i++) alt.push(altRow(others[this.int(others.length)], ++altNum, this.entityName()));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'sdn.csv'), legacyFile(sdn));
    fs.writeFileSync(path.join(dir, 'alt.csv'), legacyFile(alt));
    return { sdnRows: sdn.length, altRows: alt.length };
  }

  /** Enrollee names, `hitShare` of them made from list names (as listed, aliases, one-letter typos, accented). */
  enrollees(count: number, hitShare: number): EnrolleeName[] {
    return Array.from({ length: count }, () => {
      if (!this.chance(hitShare)) return enrollee(this.person(), 'made-up');
      const listed = this.people[this.int(this.people.length)];
      const roll = this.int(4);
      if (roll === 1 && listed.aliases.length > 0) return enrollee(listed.aliases[this.int(listed.aliases.length)], 'alias');
      if (roll === 2) return enrollee(this.typo(listed.primary), 'typo');
      if (roll === 3) return enrollee(this.accented(listed.primary), 'accented');
      return enrollee(listed.primary, 'primary');
    });
  }

  private person(): Person {
    const given = [this.givenPool[this.skewed(this.givenPool.length)]];
    if (this.chance(0.45)) given.push(this.givenPool[this.skewed(this.givenPool.length)]);
    const surname = [this.surnamePool[this.skewed(this.surnamePool.length, 2)]];
    if (this.chance(0.3)) surname.unshift(PARTICLES[this.skewed(PARTICLES.length)]);
    if (this.chance(0.15)) surname.push(this.surnamePool[this.skewed(this.surnamePool.length, 2)]);
    return { given, surname };
  }

  /** A spelling variant, as transliterations give: one or two letters changed, or the middle name dropped. */
  private variant(person: Person): Person {
    if (person.given.length > 1 && this.chance(0.3)) return { given: person.given.slice(0, 1), surname: person.surname };
    const edited = this.typo(person);
    return this.chance(0.3) ? this.typo(edited) : edited;
  }

  private typo(person: Person): Person {
    const words = [...person.given, ...person.surname];
    const w = this.int(words.length);
    const word = words[w];
    const at = 1 + this.int(Math.max(1, word.length - 1));
    const letter = 'aeioulnrst'[this.int(10)];
    words[w] =
      [word.slice(0, at) + word.slice(at + 1), word.slice(0, at) + letter + word.slice(at), word.slice(0, at) + letter + word.slice(at + 1)][this.int(3)] ||
      word;
    return { given: words.slice(0, person.given.length), surname: words.slice(person.given.length) };
  }

  private accented(person: Person): Person {
    const accent = (word: string): string => word.replace(/[aeiounszc]/, (letter) => ACCENTS[letter] ?? letter);
    return { given: person.given.map(accent), surname: person.surname.map(accent) };
  }

  private entityName(): string {
    const words = Array.from({ length: 1 + this.int(3) }, () => this.surnamePool[this.int(this.surnamePool.length)].toUpperCase());
    return `${words.join(' ')} ${['TRADING LLC', 'HOLDINGS LTD', 'SHIPPING CO', 'GROUP', 'S.A.'][this.int(5)]}`;
  }

  private pool(size: number, minSyllables: number, maxSyllables: number): string[] {
    const words = new Set<string>();
    while (words.size < size) {
      const syllables = minSyllables + this.int(maxSyllables - minSyllables + 1);
      words.add(
        Array.from({ length: syllables }, () => ONSETS[this.int(ONSETS.length)] + VOWELS[this.int(VOWELS.length)] + CODAS[this.int(CODAS.length)]).join(''),
      );
    }
    return [...words].filter((word) => word.length >= 3);
  }

  /** An index in [0, n) skewed to the front (Zipf-like); a higher `strength` flattens it. With 1, index 0 of 1,500 comes up in 1 draw of 10. */
  private skewed(n: number, strength = 1): number {
    return Math.min(n - 1, Math.floor(Math.pow(n, Math.pow(this.random(), 1 / strength)) - 1));
  }

  private chance(p: number): boolean {
    return this.random() < p;
  }

  private int(n: number): number {
    return Math.floor(this.random() * n);
  }

  /** mulberry32 */
  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

function enrollee(person: Person, kind: EnrolleeName['kind']): EnrolleeName {
  const [firstName, ...middle] = person.given.map(capitalise);
  return { firstName, middleName: middle.length > 0 ? middle.join(' ') : undefined, lastName: person.surname.map(capitalise).join(' '), kind };
}

function listName(person: Person): string {
  return `${person.surname.join(' ').toUpperCase()}, ${person.given.map(capitalise).join(' ')}`;
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function quoted(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

function sdnRow(entNum: number, name: string, type: string, remarks: string): string {
  return [String(entNum), quoted(name), type, quoted('SDGT'), EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, quoted(remarks)].join(',');
}

function altRow(entNum: number, altNum: number, name: string): string {
  return [String(entNum), String(altNum), quoted('aka'), quoted(name), EMPTY].join(',');
}

function legacyFile(rows: string[]): Buffer {
  return Buffer.concat([Buffer.from(`${rows.join('\r\n')}\r\n`, 'utf8'), Buffer.from([0x1a])]);
}
