import { ScreenedName } from './ofac-match';

/** Letters that Unicode decomposition leaves whole, folded to the Latin letters a list writes instead. */
const FOLDS: Readonly<Record<string, string>> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i', ħ: 'h' };
const UNFOLDED = /[ßæœøłđðþıħ]/g;
const MARKS = /\p{M}+/gu;
/** Apostrophes join (O'Brien, D’Angelo → obrien, dangelo); any other punctuation separates tokens. */
const APOSTROPHES = /['’‘`´ʼ]/g;
const SEPARATORS = /[^\p{L}\p{N}]+/u;
/** "LAST, First Middle" with exactly one comma: the list's way of writing an individual's name. */
const SURNAME_FIRST = /^([^,]+),([^,]+)$/;

/**
 * Lower-case, accent-folded tokens of a name, punctuation removed: "José Núñez-Ruiz" → [jose, nunez, ruiz].
 * NFKD rather than watchman's NFD: it also unpacks compatibility letters (full-width Ｊｏｓｅ, ligatures, Ǆ).
 */
export function nameTokens(raw: string): string[] {
  return raw
    .normalize('NFKD')
    .replace(MARKS, '')
    .toLowerCase()
    .replace(UNFOLDED, (letter) => FOLDS[letter] ?? letter)
    .replace(APOSTROPHES, '')
    .split(SEPARATORS)
    .filter((token) => token !== '');
}

/** An SDN name in reading order: "NUNEZ, Jose Maria" → "Jose Maria NUNEZ"; other names unchanged. */
export function reorderSdnName(name: string): string {
  const match = SURNAME_FIRST.exec(name);
  if (!match) return name.trim();
  const [, surname, given] = match;
  return `${given.trim()} ${surname.trim()}`.trim();
}

/** Tokens of an SDN individual's name, in reading order (scoring does not depend on the order). */
export function sdnNameTokens(name: string): string[] {
  return nameTokens(reorderSdnName(name));
}

/** Tokens of an enrollee's name, in reading order; the middle name only when given. */
export function personNameTokens(name: ScreenedName): string[] {
  return [...nameTokens(name.firstName), ...nameTokens(name.middleName ?? ''), ...nameTokens(name.lastName)];
}

/**
 * The token lists an enrollee's name is screened as: with the middle name and, when one is given,
 * without it, since a list entry often has none and an unmatched search token weighs fully.
 */
export function screeningVariants(name: ScreenedName): string[][] {
  const full = personNameTokens(name);
  const middle = nameTokens(name.middleName ?? '');
  return middle.length === 0 ? [full] : [full, personNameTokens({ firstName: name.firstName, lastName: name.lastName })];
}
