import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import type { Account } from '../../accounts/account.types';
import { ACCOUNT_COLUMNS, accountOf } from '../../accounts/repositories/account-columns';
import type { User } from '../entities/user.entity';
import { CONTACT_COLUMNS, contactOf, USER_COLUMNS, userOf } from './user-columns';
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
const LOCKED_USER_SQL = prepared(`select ${ACCOUNT_COLUMNS},
       ${USER_COLUMNS},
       ${CONTACT_COLUMNS}
  from accounts a
  left join users u on u.account_id = a.id and u.id = $4
 where a.id = $1 and a.partner_id = $2 and ($3::text is null or a.program_code = $3)
   for update of a`);

/** The read that starts a change of a user (user update, ITIN): the account locked with the user, in one statement. */
@Injectable()
export class LockedUserRepository {
  /**
   * The partner's account locked (`SELECT … FOR UPDATE`) with one of its users and that user's
   * contact rows, in one statement: 404/10/0 (ACCOUNT_NOT_FOUND) for another partner's or program's
   * account, a malformed id, or a user of another account.
   */
  async lock(manager: EntityManager, scope: LockScope, accountId: string, userId: string): Promise<LockedUser> {
    const rows =
      isUuid(accountId) && isUuid(userId)
        ? ((await manager.query(LOCKED_USER_SQL, [accountId, scope.partnerId, scope.programCode, userId])) as Array<Record<string, unknown>>)
        : [];
    const row = rows[0];
    if (!row || row.u_id === null) throw new DomainError('ACCOUNT_NOT_FOUND');
    return { account: accountOf(row), user: userOf(row), contact: contactOf(row) };
  }
}
