import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../common/errors/domain-error';
import type { Account } from '../../accounts/account.types';
import { ACCOUNT_COLUMNS, ACCOUNT_KEY_COLUMNS, AccountKey, accountKeyOf, accountOf } from '../../accounts/account-columns';
import type { User } from '../entities/user.entity';
import {
  changeContactOf,
  contactChangeColumns,
  CONTACT_COLUMNS,
  ContactReads,
  contactOf,
  USER_COLUMNS,
  USER_ITIN_INDEX_COLUMN,
  USER_KEY_COLUMNS,
  UserKey,
  userKeyOf,
  userOf,
} from '../user-columns';
import type { ContactRows } from './user.repository';
import { isUuid } from '../../../common/validation/identifiers';
import { prepared } from '../../../infrastructure/database/prepared-statements';
import type { CallConnection } from '../../../infrastructure/database/call-connection';

/** A partner's account in one program, or (programCode null) in any program, checked by the caller. */
export interface LockScope {
  partnerId: string;
  programCode: string | null;
}

/** A partner's account, locked, with one of its users and that user's contact rows (ids included, for the writes). */
export interface LockedUser {
  account: Account;
  user: User;
  contact: ContactRows;
}

/**
 * A change of a user whose answer seals nothing for the partner (a user update of a partner without
 * encryption, the common case): the account's and user's key columns, and only the contact rows of
 * the kinds its body touches; a kind not read is undefined.
 */
export interface LockedForChange {
  account: AccountKey;
  user: UserKey;
  contact: Partial<ContactRows>;
}

/** An ITIN addition whose answer seals nothing: the change's key columns and the user's ITIN index; no contact rows. */
export interface LockedForItin {
  account: AccountKey;
  user: UserKey & Pick<User, 'itinBidx'>;
}

// Only the account row is locked: the call's advisory locks already serialise calls on the user.
const lockedUserSql = (columns: readonly string[]) =>
  prepared(`select ${columns.join(',\n       ')}
  from accounts a
  left join users u on u.account_id = a.id and u.id = $4
 where a.id = $1 and a.partner_id = $2 and ($3::text is null or a.program_code = $3)
   for update of a`);
const LOCKED_USER_SQL = lockedUserSql([ACCOUNT_COLUMNS, USER_COLUMNS, CONTACT_COLUMNS]);
/**
 * `lockForChange`'s statements, built once: [addresses read][phones read].
 * No ciphertext but the phone numbers leaves the database, and no column the change does not use:
 * less work for PostgreSQL and Node alike (no phone aggregate built, no timestamp parsed, a shorter
 * row description); what it was measured to save is in docs/design-notes.md ("Lean reads").
 */
const LOCKED_FOR_CHANGE_SQL = [false, true].map((addresses) =>
  [false, true].map((phones) => lockedUserSql([ACCOUNT_KEY_COLUMNS, USER_KEY_COLUMNS, ...contactChangeColumns({ addresses, phones })])),
);

const LOCKED_FOR_ITIN_SQL = lockedUserSql([ACCOUNT_KEY_COLUMNS, USER_KEY_COLUMNS, USER_ITIN_INDEX_COLUMN]);

/** The read that starts a change of a user (user update, ITIN): the account locked with the user, in one statement. */
@Injectable()
export class LockedUserRepository {
  /**
   * The partner's account locked (`SELECT … FOR UPDATE`) with one of its users and that user's
   * contact rows, every column, in one statement: 404/10/0 (ACCOUNT_NOT_FOUND) for another
   * partner's or program's account, a malformed id, or a user of another account.
   */
  async lock(call: CallConnection, scope: LockScope, accountId: string, userId: string): Promise<LockedUser> {
    const row = await this.lockedRow(call, LOCKED_USER_SQL, scope, accountId, userId);
    return { account: accountOf(row), user: userOf(row), contact: contactOf(row) };
  }

  /** The same lock and checks, reading only what a change whose answer seals nothing uses (LockedForChange). */
  async lockForChange(call: CallConnection, scope: LockScope, accountId: string, userId: string, reads: ContactReads): Promise<LockedForChange> {
    const sql = LOCKED_FOR_CHANGE_SQL[reads.addresses ? 1 : 0][reads.phones ? 1 : 0];
    const row = await this.lockedRow(call, sql, scope, accountId, userId);
    return { account: accountKeyOf(row), user: userKeyOf(row), contact: changeContactOf(row, reads) };
  }

  /** The same lock and checks, reading only what an ITIN addition whose answer seals nothing uses (LockedForItin). */
  async lockForItin(call: CallConnection, scope: LockScope, accountId: string, userId: string): Promise<LockedForItin> {
    const row = await this.lockedRow(call, LOCKED_FOR_ITIN_SQL, scope, accountId, userId);
    return { account: accountKeyOf(row), user: { ...userKeyOf(row), itinBidx: row.u_itin_bidx as string | null } };
  }

  private async lockedRow(call: CallConnection, sql: string, scope: LockScope, accountId: string, userId: string): Promise<Record<string, unknown>> {
    const rows =
      isUuid(accountId) && isUuid(userId) ? await call.rows<Record<string, unknown>>(sql, [accountId, scope.partnerId, scope.programCode, userId]) : [];
    const row = rows[0];
    if (!row || row.u_id === null) throw new DomainError('ACCOUNT_NOT_FOUND');
    return row;
  }
}
