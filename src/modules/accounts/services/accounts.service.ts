import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { isUuid } from '../../../common/validation/identifiers';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import type { Account } from '../entities/account.entity';
import { AccountPatch, AccountRepository, AccountState, NewAccount, NewAccountRows, StoredAccountData } from '../repositories/account.repository';

/** Whether an account identifier can be looked up at all (the column is a uuid). */
export function isAccountId(accountId: string): boolean {
  return isUuid(accountId);
}

/**
 * What other modules do with accounts: find one (scoped to the partner), lock it, add a new one or
 * a change of its state to the caller's batch. Callers pass the manager (and batch) of their call;
 * the SQL and the account data's cipher stay in AccountRepository, inside this module.
 */
@Injectable()
export class AccountsService {
  constructor(private readonly repository: AccountRepository) {}

  /** 404/10/0 (ACCOUNT_NOT_FOUND) for another partner's or program's account, or a malformed id. */
  requireForPartner(manager: EntityManager, partnerId: string, programCode: string | null, accountId: string): Promise<Account> {
    return this.repository.requireForPartner(manager, partnerId, programCode, accountId);
  }

  findById(manager: EntityManager, accountId: string): Promise<Account | null> {
    return this.repository.findById(manager, accountId);
  }

  /** The account row locked (`SELECT … FOR UPDATE`) in the caller's transaction, then read. */
  lockForUpdate(manager: EntityManager, accountId: string): Promise<Account> {
    return this.repository.lockForUpdate(manager, accountId);
  }

  /** A new account with its primary purse, built in memory in the state given and added to the caller's batch; returned as written. */
  stageNew(batch: WriteBatch, input: NewAccount, state: AccountState, now: Date): NewAccountRows {
    const rows = this.repository.build(input, state, now);
    this.repository.stage(batch, rows);
    return rows;
  }

  /** A change of the account's state columns, added to the caller's batch (the account lifecycle's writer). */
  stageUpdate(batch: WriteBatch, accountId: string, patch: AccountPatch): void {
    this.repository.stageUpdate(batch, accountId, patch);
  }

  /** The account's decrypted direct-deposit numbers, if it has them. */
  accountData(account: Account): StoredAccountData | null {
    return this.repository.accountData(account);
  }
}
