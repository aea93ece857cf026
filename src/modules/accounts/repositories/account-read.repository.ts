import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { ContactRows } from '../../user/repositories/user.repository';
import type { User } from '../../user/user.types';
import type { UserAddress, UserPhone } from '../../user/user.types';
import { Account } from '../entities/account.entity';
import type { PaymentInstrument } from '../entities/payment-instrument.entity';
import type { Purse } from '../entities/purse.entity';

/** The tenancy of a partner call: another partner's or program's account is not found. */
export interface AccountScope {
  partnerId: string;
  programCode: string;
}

export type PurseRow = Pick<Purse, 'id' | 'purseType' | 'currency' | 'availableBalance' | 'ledgerBalance'>;
export type CardRow = Pick<
  PaymentInstrument,
  'id' | 'type' | 'status' | 'last4' | 'expirationDate' | 'embossedName' | 'embossedBusinessName' | 'embossedNameEnc' | 'embossedBusinessNameEnc'
>;

/** An account with its primary user, purses and cards; `contact` only when it was asked for. */
export interface AccountRead {
  account: Account;
  holder: User | null;
  purses: PurseRow[];
  cards: CardRow[];
  contact: ContactRows | null;
}

/** A partner's account in one program, or (programCode null) in any program, checked by the caller. */
export interface LockScope {
  partnerId: string;
  programCode: string | null;
}

/** An account locked with one of its users and that user's contact rows (ids included, for the writes). */
export interface LockedUserRead {
  account: Account;
  user: User | null;
  contact: LockedContactRows;
}

export interface LockedContactRows {
  addresses: Array<Pick<UserAddress, 'id' | 'type' | 'isDefault' | 'addressEnc'>>;
  phones: Array<Pick<UserPhone, 'id' | 'phoneType' | 'isDefault' | 'numberEnc'>>;
}

export interface UserRead {
  user: User;
  contact: ContactRows | null;
}

const ACCOUNT_COLUMNS = `a.id, a.partner_id, a.program_code, a.account_type, a.status, a.status_reason, a.kyc_pending_gate,
       a.account_cycle_day, a.currency, a.identity_kind, a.encrypted_account_data_enc, a.request_id,
       a.created_at, a.activated_at, a.closed_at, a.updated_at, a.version`;

const USER_COLUMNS = `u.id as u_id, u.account_id as u_account_id, u.is_primary as u_is_primary, u.status as u_status,
       u.first_name_enc as u_first_name_enc, u.middle_name_enc as u_middle_name_enc, u.last_name_enc as u_last_name_enc,
       u.date_of_birth_enc as u_date_of_birth_enc, u.ssn_enc as u_ssn_enc, u.ssn_suffix_enc as u_ssn_suffix_enc,
       u.itin_enc as u_itin_enc, u.matricula_enc as u_matricula_enc, u.email_enc as u_email_enc,
       u.ssn_bidx as u_ssn_bidx, u.itin_bidx as u_itin_bidx, u.matricula_bidx as u_matricula_bidx,
       u.created_at as u_created_at, u.updated_at as u_updated_at`;

// Balances as text: numeric(18,2) must not pass through a JSON number.
const PURSES = `(select coalesce(json_agg(json_build_object('id', p.id, 'purseType', p.purse_type, 'currency', p.currency,
                 'availableBalance', p.available_balance::text, 'ledgerBalance', p.ledger_balance::text) order by p.created_at), '[]')
          from purses p where p.account_id = a.id) as purses`;

const CARDS = `(select coalesce(json_agg(json_build_object('id', c.id, 'type', c.type, 'status', c.status, 'last4', c.last4,
                 'expirationDate', c.expiration_date, 'embossedName', c.embossed_name, 'embossedBusinessName', c.embossed_business_name,
                 'embossedNameEnc', c.embossed_name_enc, 'embossedBusinessNameEnc', c.embossed_business_name_enc)
                 order by c.created_at, c.id), '[]')
          from payment_instruments c where c.account_id = a.id) as cards`;

const CONTACT = `(select coalesce(json_agg(json_build_object('id', ad.id, 'type', ad.type, 'isDefault', ad.is_default, 'addressEnc', ad.address_enc)
                 order by ad.created_at, ad.id), '[]')
          from user_addresses ad where ad.user_id = u.id) as addresses,
       (select coalesce(json_agg(json_build_object('id', ph.id, 'phoneType', ph.phone_type, 'isDefault', ph.is_default, 'numberEnc', ph.number_enc)
                 order by ph.created_at, ph.id), '[]')
          from user_phones ph where ph.user_id = u.id) as phones`;

const SCOPE = `and a.partner_id = $2 and a.program_code = $3`;

function accountStatement(scoped: boolean, contact: boolean): string {
  return `select ${ACCOUNT_COLUMNS},
       ${USER_COLUMNS},
       ${PURSES},
       ${CARDS}${contact ? `,\n       ${CONTACT}` : ''}
  from accounts a
  left join lateral (select * from users where account_id = a.id and is_primary limit 1) u on true
 where a.id = $1 ${scoped ? SCOPE : ''}`;
}

function usersStatement(contact: boolean): string {
  return `select a.id as account_id,
       ${USER_COLUMNS}${contact ? `,\n       ${CONTACT}` : ''}
  from accounts a
  left join users u on u.account_id = a.id
 where a.id = $1 ${SCOPE}
 order by u.is_primary desc, u.created_at, u.id`;
}

// Only the account row is locked: the call's advisory locks already serialise calls on the user.
const LOCKED_USER_SQL = `select ${ACCOUNT_COLUMNS},
       ${USER_COLUMNS},
       (select coalesce(json_agg(json_build_object('id', ad.id, 'type', ad.type, 'isDefault', ad.is_default, 'addressEnc', ad.address_enc)
                 order by ad.created_at, ad.id), '[]')
          from user_addresses ad where ad.user_id = u.id) as addresses,
       (select coalesce(json_agg(json_build_object('id', ph.id, 'phoneType', ph.phone_type, 'isDefault', ph.is_default, 'numberEnc', ph.number_enc)
                 order by ph.created_at, ph.id), '[]')
          from user_phones ph where ph.user_id = u.id) as phones
  from accounts a
  left join users u on u.account_id = a.id and u.id = $4
 where a.id = $1 and a.partner_id = $2 and ($3::text is null or a.program_code = $3)
   for update of a`;

/** Built once: [scoped][contact]. */
const ACCOUNT_SQL = [
  [accountStatement(false, false), accountStatement(false, true)],
  [accountStatement(true, false), accountStatement(true, true)],
];
const USERS_SQL = [usersStatement(false), usersStatement(true)];

type Row = Record<string, unknown>;

/**
 * The reads behind GET account and GET users, one statement each: the account, its users, purses,
 * cards and (for the partner view of encryption partners) the users' encrypted contact rows.
 * Callers check the id is a uuid first: a malformed one never reaches the uuid column.
 */
@Injectable()
export class AccountReadRepository {
  async account(manager: EntityManager, accountId: string, scope: AccountScope | null, withContact: boolean): Promise<AccountRead | null> {
    const params = scope ? [accountId, scope.partnerId, scope.programCode] : [accountId];
    const rows = (await manager.query(ACCOUNT_SQL[scope ? 1 : 0][withContact ? 1 : 0], params)) as Row[];
    const row = rows[0];
    if (!row) return null;
    const holder = row.u_id === null ? null : userOf(row);
    return {
      account: accountOf(row),
      holder,
      purses: row.purses as PurseRow[],
      cards: row.cards as CardRow[],
      contact: withContact && holder ? contactOf(row) : null,
    };
  }

  /**
   * `SELECT … FOR UPDATE` of the account in scope, with one of its users (null when the account has
   * no such user) and that user's contact rows, in one statement; null when the account is not found.
   * Both ids must be uuids.
   */
  async lockUser(manager: EntityManager, accountId: string, userId: string, scope: LockScope): Promise<LockedUserRead | null> {
    const rows = (await manager.query(LOCKED_USER_SQL, [accountId, scope.partnerId, scope.programCode, userId])) as Row[];
    const row = rows[0];
    if (!row) return null;
    if (row.u_id === null) return { account: accountOf(row), user: null, contact: { addresses: [], phones: [] } };
    return {
      account: accountOf(row),
      user: userOf(row),
      contact: { addresses: row.addresses as LockedContactRows['addresses'], phones: row.phones as LockedContactRows['phones'] },
    };
  }

  /** Every user of the account in scope, primary first; null when the account is not found. */
  async users(manager: EntityManager, accountId: string, scope: AccountScope, withContact: boolean): Promise<UserRead[] | null> {
    const rows = (await manager.query(USERS_SQL[withContact ? 1 : 0], [accountId, scope.partnerId, scope.programCode])) as Row[];
    if (rows.length === 0) return null;
    return rows.filter((row) => row.u_id !== null).map((row) => ({ user: userOf(row), contact: withContact ? contactOf(row) : null }));
  }
}

function accountOf(row: Row): Account {
  return Object.assign(new Account(), {
    id: row.id,
    partnerId: row.partner_id,
    programCode: row.program_code,
    accountType: row.account_type,
    status: row.status,
    statusReason: row.status_reason,
    kycPendingGate: row.kyc_pending_gate,
    accountCycleDay: row.account_cycle_day,
    currency: row.currency,
    identityKind: row.identity_kind,
    encryptedAccountDataEnc: row.encrypted_account_data_enc,
    requestId: row.request_id,
    createdAt: row.created_at,
    activatedAt: row.activated_at,
    closedAt: row.closed_at,
    updatedAt: row.updated_at,
    version: row.version,
  });
}

function userOf(row: Row): User {
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

function contactOf(row: Row): ContactRows {
  return { addresses: row.addresses as ContactRows['addresses'], phones: row.phones as ContactRows['phones'] };
}
