import { randomInt, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import { FieldCipher } from '../../../infrastructure/crypto/field-cipher';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import { Account, AccountType, IdentityKind } from '../entities/account.entity';
import { Purse } from '../entities/purse.entity';
import { isUuid } from '../../../common/validation/identifiers';

const ACCOUNT_DATA_CONTEXT = 'accounts.encrypted_account_data';
/** Sandbox ABA routing number (valid check digit); a real issuer configures its own. */
const ROUTING_NUMBER = '011000015';

/** The encrypted account information of SERVICE.md held on the account row (direct deposit). */
export interface StoredAccountData {
  directDeposit: { routingNumber: string; accountNumber: string };
}

export interface NewAccount {
  partnerId: string;
  programCode: string;
  accountType: AccountType;
  currency: string;
  identityKind: IdentityKind;
  requestId: string | null;
}

/** The state columns of an account, as a new one is written. */
export type AccountState = Pick<Account, 'status' | 'statusReason' | 'kycPendingGate' | 'accountCycleDay' | 'activatedAt'>;

export interface NewAccountRows {
  account: Account;
  purse: Purse;
  accountData: StoredAccountData;
}

export type AccountPatch = Partial<
  Pick<
    Account,
    | 'status'
    | 'statusReason'
    | 'kycPendingGate'
    | 'accountCycleDay'
    | 'activatedAt'
    | 'closedAt'
    | 'restoreStatus'
    | 'restoreStatusReason'
    | 'unblockRunId'
    | 'unblockAttempt'
  >
>;

/** Account persistence: look-ups scoped to the partner (tenancy), row locks, creation with the primary purse. */
@Injectable()
export class AccountRepository {
  constructor(private readonly cipher: FieldCipher) {}

  /** Another partner's or program's account, or a malformed id, is simply not found. */
  async findForPartner(manager: EntityManager, partnerId: string, programCode: string | null, accountId: string): Promise<Account | null> {
    if (!isUuid(accountId)) return null;
    const account = await manager.findOne(Account, { where: { id: accountId, partnerId } });
    if (!account || (programCode !== null && account.programCode !== programCode)) return null;
    return account;
  }

  async requireForPartner(manager: EntityManager, partnerId: string, programCode: string | null, accountId: string): Promise<Account> {
    const account = await this.findForPartner(manager, partnerId, programCode, accountId);
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND');
    return account;
  }

  findById(manager: EntityManager, accountId: string): Promise<Account | null> {
    return isUuid(accountId) ? manager.findOne(Account, { where: { id: accountId } }) : Promise.resolve(null);
  }

  /**
   * SELECT ... FOR UPDATE: serialises state changes of one account inside the caller's transaction.
   * The row is locked in plain SQL, then read: TypeORM's `lock` option requires a transaction TypeORM
   * opened itself, and a call's transaction is the CallConnection's.
   */
  async lockForUpdate(manager: EntityManager, accountId: string): Promise<Account> {
    await manager.query('select 1 from accounts where id = $1 for update', [accountId]);
    const account = await manager.findOne(Account, { where: { id: accountId } });
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND');
    return account;
  }

  /**
   * A new account with its primary purse and direct-deposit numbers, built in memory in the state
   * given (pending until its enrollment completes; a new enrollment that completes at once is
   * written in its final state). Nothing is read back: the rows are what the answer shows.
   */
  build(input: NewAccount, state: AccountState, now: Date): NewAccountRows {
    const accountData: StoredAccountData = {
      directDeposit: { routingNumber: ROUTING_NUMBER, accountNumber: String(randomInt(1e11, 1e12)) },
    };
    const account: Account = Object.assign(new Account(), {
      id: randomUUID(),
      ...input,
      ...state,
      encryptedAccountDataEnc: this.cipher.encryptJson(accountData, ACCOUNT_DATA_CONTEXT),
      createdAt: now,
      closedAt: null,
      updatedAt: now,
      restoreStatus: null,
      restoreStatusReason: null,
      unblockRunId: null,
      unblockAttempt: 0,
      version: 1,
    });
    const purse: Purse = Object.assign(new Purse(), {
      id: randomUUID(),
      accountId: account.id,
      purseType: 'primary' as const,
      currency: input.currency,
      availableBalance: '0.00',
      ledgerBalance: '0.00',
      createdAt: now,
    });
    return { account, purse, accountData };
  }

  /** Adds the rows of `build` to a batch of the caller's transaction. */
  stage(batch: WriteBatch, { account: a, purse: p }: NewAccountRows): void {
    batch.insert(
      'accounts',
      [
        'id',
        'partner_id',
        'program_code',
        'account_type',
        'status',
        'status_reason',
        'kyc_pending_gate',
        'account_cycle_day',
        'currency',
        'identity_kind',
        'encrypted_account_data_enc',
        'request_id',
        'created_at',
        'activated_at',
        'updated_at',
      ],
      [
        [
          a.id,
          a.partnerId,
          a.programCode,
          a.accountType,
          a.status,
          a.statusReason,
          a.kycPendingGate,
          a.accountCycleDay,
          a.currency,
          a.identityKind,
          a.encryptedAccountDataEnc,
          a.requestId,
          a.createdAt,
          a.activatedAt,
          a.updatedAt,
        ],
      ],
    );
    batch.insert('purses', ['id', 'account_id', 'purse_type', 'currency', 'created_at'], [[p.id, p.accountId, p.purseType, p.currency, p.createdAt]]);
  }

  /** The patch as a part of the caller's batch (version bumped, updated_at now); the caller knows the result. */
  stageUpdate(batch: WriteBatch, accountId: string, patch: AccountPatch): void {
    const entries = Object.entries(patch);
    const params: unknown[] = [accountId];
    const sets = entries.map(([field, value]) => `${field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)} = $${params.push(value)}`);
    batch.write(`update accounts set ${[...sets, 'version = version + 1', 'updated_at = now()'].join(', ')} where id = $1`, params);
  }

  accountData(account: Account): StoredAccountData | null {
    return account.encryptedAccountDataEnc ? this.cipher.decryptJson<StoredAccountData>(account.encryptedAccountDataEnc, ACCOUNT_DATA_CONTEXT) : null;
  }
}
