import { randomInt, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import { FieldCipher } from '../../../infrastructure/crypto/field-cipher';
import { Account, AccountType, IdentityKind } from '../entities/account.entity';
import { Purse } from '../entities/purse.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
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

export type AccountPatch = Partial<Pick<Account, 'status' | 'statusReason' | 'kycPendingGate' | 'accountCycleDay' | 'activatedAt' | 'closedAt'>>;

/** Account persistence: look-ups scoped to the partner (tenancy), row locks, creation with the primary purse. */
@Injectable()
export class AccountRecordsService {
  constructor(private readonly cipher: FieldCipher) {}

  /** Another partner's or program's account, or a malformed id, is simply not found. */
  async findForPartner(manager: EntityManager, partnerId: string, programCode: string | null, accountId: string): Promise<Account | null> {
    if (!UUID.test(accountId)) return null;
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
    return UUID.test(accountId) ? manager.findOne(Account, { where: { id: accountId } }) : Promise.resolve(null);
  }

  /** SELECT ... FOR UPDATE: serialises state changes of one account inside the caller's transaction. */
  async lockForUpdate(manager: EntityManager, accountId: string): Promise<Account> {
    const account = await manager.findOne(Account, { where: { id: accountId }, lock: { mode: 'pessimistic_write' } });
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND');
    return account;
  }

  /** A new account (status pending until enrollment finishes) with its primary purse and direct-deposit numbers. */
  async create(manager: EntityManager, input: NewAccount): Promise<{ account: Account; purse: Purse }> {
    const data: StoredAccountData = {
      directDeposit: { routingNumber: ROUTING_NUMBER, accountNumber: String(randomInt(1e11, 1e12)) },
    };
    const account = manager.create(Account, {
      id: randomUUID(),
      ...input,
      status: 'pending',
      statusReason: null,
      kycPendingGate: 'none',
      accountCycleDay: null,
      encryptedAccountDataEnc: this.cipher.encryptJson(data, ACCOUNT_DATA_CONTEXT),
      activatedAt: null,
      closedAt: null,
    });
    await manager.insert(Account, account);
    const purse = manager.create(Purse, { id: randomUUID(), accountId: account.id, purseType: 'primary', currency: input.currency });
    await manager.insert(Purse, purse);
    return { account: (await manager.findOneOrFail(Account, { where: { id: account.id } })), purse };
  }

  /** Applies the patch, bumps version and updated_at; returns the account as stored. */
  async update(manager: EntityManager, account: Account, patch: AccountPatch): Promise<Account> {
    await manager.update(Account, { id: account.id }, { ...patch, version: () => 'version + 1', updatedAt: () => 'now()' });
    return manager.findOneOrFail(Account, { where: { id: account.id } });
  }

  pursesOf(manager: EntityManager, accountId: string): Promise<Purse[]> {
    return manager.find(Purse, { where: { accountId }, order: { createdAt: 'ASC' } });
  }

  accountData(account: Account): StoredAccountData | null {
    return account.encryptedAccountDataEnc ? this.cipher.decryptJson<StoredAccountData>(account.encryptedAccountDataEnc, ACCOUNT_DATA_CONTEXT) : null;
  }
}
