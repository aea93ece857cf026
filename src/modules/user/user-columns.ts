import type { User } from './entities/user.entity';
import type { ContactRows } from './repositories/user.repository';

/** What an answer that seals nothing shows of a user. */
export type UserKey = Pick<User, 'id' | 'isPrimary' | 'status'>;

/**
 * The user row (alias `u`, columns prefixed `u_`) and its contact rows as one-statement reads that
 * join them with the account select them (the account views, the user update's lock). The user
 * module owns these columns; `userOf` and `contactOf` map such a row back.
 * `USER_PUBLIC_COLUMNS` are the ones a view needs when nothing is sealed for the partner (a partner
 * without encryption): no encrypted or blind-index column leaves the database for an answer that
 * shows none of them, and `userOf` leaves those fields undefined.
 */
export const USER_PUBLIC_COLUMNS = `u.id as u_id, u.account_id as u_account_id, u.is_primary as u_is_primary, u.status as u_status,
       u.created_at as u_created_at, u.updated_at as u_updated_at`;

/** The user columns an answer that seals nothing shows (`userKeyOf` maps them back). */
export const USER_KEY_COLUMNS = 'u.id as u_id, u.is_primary as u_is_primary, u.status as u_status';
/** The user's ITIN blind index, which an ITIN addition compares (`u_itin_bidx`). */
export const USER_ITIN_INDEX_COLUMN = 'u.itin_bidx as u_itin_bidx';

/** Every user column: the public ones, the encrypted ones and the blind indexes. */
export const USER_COLUMNS = `${USER_PUBLIC_COLUMNS},
       u.first_name_enc as u_first_name_enc, u.middle_name_enc as u_middle_name_enc, u.last_name_enc as u_last_name_enc,
       u.date_of_birth_enc as u_date_of_birth_enc, u.ssn_enc as u_ssn_enc, u.ssn_suffix_enc as u_ssn_suffix_enc,
       u.itin_enc as u_itin_enc, u.matricula_enc as u_matricula_enc, u.email_enc as u_email_enc,
       u.ssn_bidx as u_ssn_bidx, u.itin_bidx as u_itin_bidx, u.matricula_bidx as u_matricula_bidx`;

/** The user's addresses, oldest first, with or without their ciphertext. */
function addressesColumn(ciphertext: boolean): string {
  const fields = `'id', ad.id, 'type', ad.type, 'isDefault', ad.is_default${ciphertext ? `, 'addressEnc', ad.address_enc` : ''}`;
  return `(select coalesce(json_agg(json_build_object(${fields})
                 order by ad.created_at, ad.id), '[]')
          from user_addresses ad where ad.user_id = u.id) as addresses`;
}

const PHONES_COLUMN = `(select coalesce(json_agg(json_build_object('id', ph.id, 'phoneType', ph.phone_type, 'isDefault', ph.is_default, 'numberEnc', ph.number_enc)
                 order by ph.created_at, ph.id), '[]')
          from user_phones ph where ph.user_id = u.id) as phones`;

/** The user's addresses and phones as two JSON arrays (`addresses`, `phones`), oldest first. */
export const CONTACT_COLUMNS = `${addressesColumn(true)},
       ${PHONES_COLUMN}`;

/**
 * The contact rows a change of the user reads when its answer seals nothing for the partner, only
 * of the kinds its body touches: the addresses without their ciphertext (an address update replaces
 * one by type and moves the default), the phones with their numbers (a phone update compares the
 * default one's with the new default). `changeContactOf` maps them back.
 */
export function contactChangeColumns(reads: ContactReads): string[] {
  return [...(reads.addresses ? [addressesColumn(false)] : []), ...(reads.phones ? [PHONES_COLUMN] : [])];
}

/** Which kinds of a user's contact rows a change touches. */
export interface ContactReads {
  addresses: boolean;
  phones: boolean;
}

type Row = Record<string, unknown>;

export function userOf(row: Row): User {
  return {
    id: row.u_id,
    accountId: row.u_account_id,
    isPrimary: row.u_is_primary,
    status: row.u_status,
    firstNameEnc: row.u_first_name_enc,
    middleNameEnc: row.u_middle_name_enc,
    lastNameEnc: row.u_last_name_enc,
    dateOfBirthEnc: row.u_date_of_birth_enc,
    ssnEnc: row.u_ssn_enc,
    ssnSuffixEnc: row.u_ssn_suffix_enc,
    itinEnc: row.u_itin_enc,
    matriculaEnc: row.u_matricula_enc,
    emailEnc: row.u_email_enc,
    ssnBidx: row.u_ssn_bidx,
    itinBidx: row.u_itin_bidx,
    matriculaBidx: row.u_matricula_bidx,
    createdAt: row.u_created_at,
    updatedAt: row.u_updated_at,
  } as User;
}

/** The user's key columns (USER_KEY_COLUMNS). */
export function userKeyOf(row: Row): UserKey {
  return { id: row.u_id as string, isPrimary: row.u_is_primary as boolean, status: row.u_status as User['status'] };
}

/** The contact rows of the kinds read (contactChangeColumns); a kind not read stays undefined. */
export function changeContactOf(row: Row, reads: ContactReads): Partial<ContactRows> {
  return {
    addresses: reads.addresses ? (row.addresses as ContactRows['addresses']) : undefined,
    phones: reads.phones ? (row.phones as ContactRows['phones']) : undefined,
  };
}

export function contactOf(row: Row): ContactRows {
  return { addresses: row.addresses as ContactRows['addresses'], phones: row.phones as ContactRows['phones'] };
}
