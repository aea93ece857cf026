/** The enrollee's name as screened; the middle name is optional on either side of the comparison. */
export interface ScreenedName {
  readonly firstName: string;
  readonly middleName?: string;
  readonly lastName: string;
}

export type OfacNameKind = 'primary' | 'alias';

/** The best SDN name at or above the threshold: `entNum` is the list's entry number, for the audit trail. */
export interface OfacMatch {
  readonly entNum: number;
  /** The name as the list writes it ("NUNEZ, Jose"): personal data, keep it out of logs. */
  readonly matchedName: string;
  /** Watchman's best-pairs Jaro-Winkler score, in [0, 1], rounded to 4 decimals. */
  readonly score: number;
  readonly kind: OfacNameKind;
}
