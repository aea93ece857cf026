/**
 * The character sets of CONTRACT.md section 6 (SERVICE.md leaves the table open). The one place
 * they live: user-data DTOs, business-data DTOs and card embossing all read them from here.
 */

/** Letters allowed in names, addresses and business names: ASCII plus the Spanish letters. */
export const LETTERS = 'A-Za-zÁÉÍÓÚÜÑáéíóúüñ';

const LETTER = `[${LETTERS}]`;

/**
 * Names (first, middle, last): letters, space, apostrophe, hyphen, period; starting and ending
 * with a letter; no two separators in a row ("Mary-Ann", "O'Neil", "De la Cruz").
 */
export const NAME_PATTERN = new RegExp(`^${LETTER}(?:[ '.\\-]?${LETTER})*$`, 'u');

/**
 * Address lines, city and businessName: letters, digits, space and # - . , ' / &, with at least one
 * letter or digit when not empty (spaces or separators alone name nothing: a business name of spaces
 * would leave the next card without its embossed business name). Emptiness is the length rules'.
 */
export const ADDRESS_PATTERN = new RegExp(`^(?:|(?=.*[${LETTERS}0-9])[${LETTERS}0-9 #\\-.,'/&]+)$`, 'u');

export function isValidName(value: unknown): boolean {
  return typeof value === 'string' && NAME_PATTERN.test(value);
}

export function isValidAddressText(value: unknown): boolean {
  return typeof value === 'string' && ADDRESS_PATTERN.test(value);
}

const EMBOSS_REPLACEMENTS: Readonly<Record<string, string>> = {
  Á: 'A',
  É: 'E',
  Í: 'I',
  Ó: 'O',
  Ú: 'U',
  Ü: 'U',
  Ñ: 'N',
};

/** The name as printed on a card: upper case, Spanish letters replaced by their substitutes. */
export function embossName(value: string): string {
  return value
    .toUpperCase()
    .replace(/[ÁÉÍÓÚÜÑ]/g, (letter) => EMBOSS_REPLACEMENTS[letter] ?? letter)
    .replace(/\s+/g, ' ')
    .trim();
}

/** US ZIP code: `12345` or `12345-6789` (contract: zip codes are 5 or 10 characters). */
export const ZIP_CODE_PATTERN = /^[0-9]{5}(?:-[0-9]{4})?$/;

/** The lengths ZIP_CODE_PATTERN admits, for the length rules and schemas that state them. */
export const ZIP_CODE_LENGTHS: readonly number[] = [5, 10];

/** USPS two-letter codes: states, DC, territories and military post offices. */
export const USPS_STATE_CODES: ReadonlySet<string> = new Set(
  (
    'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND ' +
    'OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC AS GU MP PR VI UM FM MH PW AA AE AP'
  ).split(' '),
);
