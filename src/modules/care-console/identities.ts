import type { RevealField } from './staff';

/** The identities a user may hold, decrypted (at most one of ssn, ssnSuffix and matriculaId; an ITIN beside a Matricula ID). */
export interface StoredIdentity {
  ssn?: string;
  ssnSuffix?: string;
  itin?: string;
  matriculaId?: string;
}

export type IdentityField = Exclude<RevealField, 'dateOfBirth' | 'email'>;

/**
 * An email as the account page shows it before a reveal: the first character of its local part and
 * its domain (enough to confirm with a caller), the rest hidden.
 */
export function maskedEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 1) return '•••';
  return `${address.slice(0, 1)}•••${address.slice(at)}`;
}

/**
 * A value as the account page shows it before a reveal, where its shape is its own (a Matricula ID,
 * a business phone number): a bullet per hidden character and at most its last four, never more
 * than half of it, so a short one is never shown whole.
 */
export function maskedTail(value: string): string {
  const shown = Math.min(4, Math.floor(value.length / 2));
  return `${'•'.repeat(value.length - shown)}${value.slice(value.length - shown)}`;
}

/** One identity as the account page shows it: masked, and revealable where more is stored than the mask shows. */
export interface IdentityRow {
  label: string;
  masked: string;
  /** What a reveal names in the audit trail; null when the mask already shows everything stored (an SSN's last four). */
  field: IdentityField | null;
}

const nineDigits = (value: string) => `•••-••-${value.slice(-4)}`;

/**
 * Every identity the user holds, each masked in its own shape (CONTRACT section 14: last four by
 * default). An SSN or ITIN keeps the SSN's nine-digit shape. A Matricula ID is one run of 4 to 20
 * letters and digits: a bullet per hidden character, and at most half of it shown, so a short one
 * is never shown whole.
 */
export function identitiesOf(id: StoredIdentity): IdentityRow[] {
  const rows: IdentityRow[] = [];
  if (id.ssn) rows.push({ label: 'SSN', masked: nineDigits(id.ssn), field: 'ssn' });
  if (id.ssnSuffix) rows.push({ label: 'SSN (last four only)', masked: nineDigits(id.ssnSuffix), field: null });
  if (id.matriculaId) rows.push({ label: 'Matricula ID', masked: maskedTail(id.matriculaId), field: 'matricula' });
  if (id.itin) rows.push({ label: 'ITIN', masked: nineDigits(id.itin), field: 'itin' });
  return rows;
}

/** The full value a reveal of this identity shows, or undefined when the user holds none of it. */
export function identityValue(id: StoredIdentity, field: IdentityField): string | undefined {
  const values: Record<IdentityField, string | undefined> = { ssn: id.ssn, itin: id.itin, matricula: id.matriculaId };
  return values[field];
}
