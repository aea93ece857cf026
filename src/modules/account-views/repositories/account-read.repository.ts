import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Account } from '../../accounts/account.types';
import { ACCOUNT_COLUMNS, ACCOUNT_PUBLIC_COLUMNS, accountOf, CARDS, CardRow, PURSES, PurseRow } from '../../accounts/account-columns';
import { CONTACT_COLUMNS, contactOf, USER_COLUMNS, USER_PUBLIC_COLUMNS, userOf } from '../../user/user-columns';
import type { ContactRows, User } from '../../user/user.types';
import { DatabasePools } from '../../../infrastructure/database/database-pools';
import { queryRows } from '../../../infrastructure/database/pooled-read';
import { prepared } from '../../../infrastructure/database/prepared-statements';

/** The tenancy of a partner call: another partner's or program's account is not found. */
export interface AccountScope {
  partnerId: string;
  programCode: string;
}

/**
 * An account with its primary user, purses and cards. Read for a view that seals data for the
 * partner (`sealed`), it also carries the encrypted columns (account data, the user's names and
 * identifiers) and the user's contact rows; otherwise those stay in the database.
 */
export interface AccountRead {
  account: Account;
  holder: User | null;
  purses: PurseRow[];
  cards: CardRow[];
  contact: ContactRows | null;
}

export interface UserRead {
  user: User;
  contact: ContactRows | null;
}

const SCOPE = `and a.partner_id = $2 and a.program_code = $3`;

/** The user's columns a view reads: with its encrypted columns and contact rows only when it seals them for the partner. */
function userColumns(sealed: boolean): string {
  return sealed ? `${USER_COLUMNS},\n       ${CONTACT_COLUMNS}` : USER_PUBLIC_COLUMNS;
}

function accountStatement(scoped: boolean, sealed: boolean): string {
  return `select ${sealed ? ACCOUNT_COLUMNS : ACCOUNT_PUBLIC_COLUMNS},
       ${userColumns(sealed)},
       ${PURSES},
       ${CARDS}
  from accounts a
  left join lateral (select * from users where account_id = a.id and is_primary limit 1) u on true
 where a.id = $1 ${scoped ? SCOPE : ''}`;
}

function usersStatement(sealed: boolean): string {
  return `select a.id as account_id,
       ${userColumns(sealed)}
  from accounts a
  left join users u on u.account_id = a.id
 where a.id = $1 ${SCOPE}
 order by u.is_primary desc, u.created_at, u.id`;
}

/** Built once: [scoped][sealed]. */
const ACCOUNT_SQL = [
  [prepared(accountStatement(false, false)), prepared(accountStatement(false, true))],
  [prepared(accountStatement(true, false)), prepared(accountStatement(true, true))],
];
const USERS_SQL = [prepared(usersStatement(false)), prepared(usersStatement(true))];

type Row = Record<string, unknown>;

/**
 * The reads behind GET account and GET users, one statement each: the account, its users, purses,
 * cards and (for the partner view of encryption partners) the encrypted columns and contact rows.
 * Callers check the id is a uuid first: a malformed one never reaches the uuid column.
 */
@Injectable()
export class AccountReadRepository {
  constructor(private readonly pools: DatabasePools) {}

  /** Without a manager, a lone read (GET account); with one, in that transaction. */
  async account(manager: EntityManager | undefined, accountId: string, scope: AccountScope | null, sealed: boolean): Promise<AccountRead | null> {
    const params = scope ? [accountId, scope.partnerId, scope.programCode] : [accountId];
    const rows = await queryRows<Row>(manager ?? this.pools.pool(), ACCOUNT_SQL[scope ? 1 : 0][sealed ? 1 : 0], params);
    const row = rows[0];
    if (!row) return null;
    const holder = row.u_id === null ? null : userOf(row);
    return {
      account: accountOf(row),
      holder,
      purses: row.purses as PurseRow[],
      cards: row.cards as CardRow[],
      contact: sealed && holder ? contactOf(row) : null,
    };
  }

  /** Every user of the account in scope, primary first; null when the account is not found. */
  async users(accountId: string, scope: AccountScope, sealed: boolean): Promise<UserRead[] | null> {
    const rows = await queryRows<Row>(this.pools.pool(), USERS_SQL[sealed ? 1 : 0], [accountId, scope.partnerId, scope.programCode]);
    if (rows.length === 0) return null;
    return rows.filter((row) => row.u_id !== null).map((row) => ({ user: userOf(row), contact: sealed ? contactOf(row) : null }));
  }
}
