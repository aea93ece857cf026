import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import type { Account } from '../../accounts/account.types';
import { ACCOUNT_COLUMNS, ACCOUNT_PUBLIC_COLUMNS, accountOf } from '../../accounts/repositories/account-columns';
import type { User } from '../entities/user.entity';
import { CONTACT_CHANGE_COLUMNS, CONTACT_COLUMNS, contactOf, USER_COLUMNS, USER_PUBLIC_COLUMNS, userOf } from './user-columns';
import type { ContactRows } from './user.repository';
import { isUuid } from '../../../common/validation/identifiers';
import { prepared } from '../../../infrastructure/database/prepared-statements';

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

// Only the account row is locked: the call's advisory locks already serialise calls on the user.
const lockedUserSql = (account: string, user: string, contact: string) =>
  prepared(`select ${account},
       ${user},
       ${contact}
  from accounts a
  left join users u on u.account_id = a.id and u.id = $4
 where a.id = $1 and a.partner_id = $2 and ($3::text is null or a.program_code = $3)
   for update of a`);
const LOCKED_USER_SQL = lockedUserSql(ACCOUNT_COLUMNS, USER_COLUMNS, CONTACT_COLUMNS);
/**
 * For a change whose answer seals nothing for the partner: no encrypted column but the phone
 * numbers leaves the database (a user update of a partner without encryption, the common case,
 * read ~1.5 KB of ciphertext it never opened).
 */
const LOCKED_USER_FOR_CHANGE_SQL = lockedUserSql(ACCOUNT_PUBLIC_COLUMNS, USER_PUBLIC_COLUMNS, CONTACT_CHANGE_COLUMNS);

/** The read that starts a change of a user (user update, ITIN): the account locked with the user, in one statement. */
@Injectable()
export class LockedUserRepository {
  /**
   * The partner's account locked (`SELECT … FOR UPDATE`) with one of its users and that user's
   * contact rows, in one statement: 404/10/0 (ACCOUNT_NOT_FOUND) for another partner's or program's
   * account, a malformed id, or a user of another account. `whole` false: the account and user
   * without their encrypted columns and the addresses without theirs (CONTACT_CHANGE_COLUMNS), for a
   * change whose answer seals nothing for the partner.
   */
  async lock(manager: EntityManager, scope: LockScope, accountId: string, userId: string, whole = true): Promise<LockedUser> {
    const rows =
      isUuid(accountId) && isUuid(userId)
        ? ((await manager.query(whole ? LOCKED_USER_SQL : LOCKED_USER_FOR_CHANGE_SQL, [accountId, scope.partnerId, scope.programCode, userId])) as Array<
            Record<string, unknown>
          >)
        : [];
    const row = rows[0];
    if (!row || row.u_id === null) throw new DomainError('ACCOUNT_NOT_FOUND');
    return { account: accountOf(row), user: userOf(row), contact: contactOf(row) };
  }
}
