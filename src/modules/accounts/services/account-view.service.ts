import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import type { PartnerConfig } from '../../../config/service-config';
import type { User } from '../../user/user.types';
import { ContactRows, UserDataPlain, UserRepository } from '../../user/repositories/user.repository';
import { Account } from '../entities/account.entity';
import { PaymentInstrument } from '../entities/payment-instrument.entity';
import { Purse } from '../entities/purse.entity';
import { AccountRead, AccountReadRepository, AccountScope, PurseRow, UserRead } from '../repositories/account-read.repository';
import { AccountRepository, isAccountId, StoredAccountData } from '../repositories/account.repository';
import { PartnerViewService } from '../../../infrastructure/crypto/partner-view.service';
import { PaymentInstrumentService, PaymentInstrumentView } from './payment-instrument.service';

export type { PaymentInstrumentView };

export interface PurseView {
  purseIdentifier: string;
  purseType: string;
  currency: string;
  availableBalance: string;
  ledgerBalance: string;
}

export interface AccountDataView {
  accountIdentifier: string;
  programCode: string;
  accountType: string;
  status: string;
  statusReason: string | null;
  kycPendingGate: string;
  accountCycleDay: number | null;
  currency: string;
  createdDateTime: string;
  activatedDateTime: string | null;
  closedDateTime: string | null;
  purses: PurseView[];
  encryptedAccountData?: string;
}

export interface UserView {
  userIdentifier: string;
  isPrimaryAccountHolder: boolean;
  status: string;
  encryptedUserData?: string;
}

/** The body of POST/GET enrollments (and of care operations) beside the envelope. */
export interface AccountView {
  account: AccountDataView;
  user: UserView;
  paymentInstruments: PaymentInstrumentView[];
}

/** What a new enrollment wrote, as `renderNew` needs it. */
export interface NewAccountView {
  account: Account;
  purse: Purse;
  accountData: StoredAccountData;
  user: User;
  userData: UserDataPlain;
  cards: PaymentInstrument[];
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

function accountDataView(account: Account, purses: PurseRow[], sealed: Record<string, string>): AccountDataView {
  return {
    accountIdentifier: account.id,
    programCode: account.programCode,
    accountType: account.accountType,
    status: account.status,
    statusReason: account.statusReason,
    kycPendingGate: account.kycPendingGate,
    accountCycleDay: account.accountCycleDay,
    currency: account.currency.trim(),
    createdDateTime: account.createdAt.toISOString(),
    activatedDateTime: iso(account.activatedAt),
    closedDateTime: iso(account.closedAt),
    purses: purses.map(purseView),
    ...sealed,
  };
}

/** Renders accounts, users and cards for a partner, with the partner view applied to encrypted data. */
@Injectable()
export class AccountViewService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accounts: AccountRepository,
    private readonly users: UserRepository,
    private readonly instruments: PaymentInstrumentService,
    private readonly partnerView: PartnerViewService,
    private readonly reads: AccountReadRepository,
  ) {}

  /**
   * `{account, user, paymentInstruments}` of an account and its primary user, exactly as GET account
   * answers, read in one statement. Without a scope the caller has already checked who may see it.
   */
  async render(
    accountId: string,
    partner: PartnerConfig,
    manager: EntityManager = this.dataSource.manager,
    scope: AccountScope | null = null,
  ): Promise<AccountView> {
    const read = isAccountId(accountId) ? await this.reads.account(manager, accountId, scope, this.partnerView.receivesEncryptedData(partner)) : null;
    if (!read) throw new DomainError('ACCOUNT_NOT_FOUND');
    return this.viewOf(read, partner);
  }

  /** Every user of a partner's account, primary first, read in one statement with the tenancy check. */
  async renderUsers(accountId: string, partner: PartnerConfig, scope: AccountScope): Promise<UserView[]> {
    const read = isAccountId(accountId)
      ? await this.reads.users(this.dataSource.manager, accountId, scope, this.partnerView.receivesEncryptedData(partner))
      : null;
    if (!read) throw new DomainError('ACCOUNT_NOT_FOUND');
    const views: UserView[] = [];
    for (const one of read) views.push(await this.readUserView(one, partner));
    return views;
  }

  private async viewOf({ account, holder, purses, cards, contact }: AccountRead, partner: PartnerConfig): Promise<AccountView> {
    if (!holder) throw new Error(`account ${account.id} has no primary user`);
    const sealed = await this.partnerView.seal(partner, 'encryptedAccountData', () => ({
      accountHolder: this.users.namesOf(holder),
      ...(this.accounts.accountData(account) ?? {}),
    }));
    return {
      account: accountDataView(account, purses, sealed),
      user: await this.readUserView({ user: holder, contact }, partner),
      paymentInstruments: cards.map((card) => this.instruments.view(card)),
    };
  }

  private async readUserView({ user, contact }: UserRead, partner: PartnerConfig): Promise<UserView> {
    const sealed = await this.partnerView.seal(partner, 'encryptedUserData', () => {
      if (!contact) throw new Error(`contact rows of user ${user.id} were not read`);
      return this.users.decryptWith(user, contact);
    });
    return { userIdentifier: user.id, isPrimaryAccountHolder: user.isPrimary, status: user.status, ...sealed };
  }

  /**
   * The view of an account whose rows were just built in memory (a new enrollment): the same
   * answer GET account gives, made from the plaintext in hand, with nothing read back or decrypted.
   */
  async renderNew(rows: NewAccountView, partner: PartnerConfig): Promise<AccountView> {
    const { firstName, middleName, lastName } = rows.userData;
    const sealedAccount = await this.partnerView.seal(partner, 'encryptedAccountData', () => ({
      accountHolder: { firstName, ...(middleName !== undefined ? { middleName } : {}), lastName },
      ...rows.accountData,
    }));
    const sealedUser = await this.partnerView.seal(partner, 'encryptedUserData', () => rows.userData);
    return {
      account: accountDataView(rows.account, [rows.purse], sealedAccount),
      user: { userIdentifier: rows.user.id, isPrimaryAccountHolder: rows.user.isPrimary, status: rows.user.status, ...sealedUser },
      paymentInstruments: rows.cards.map((card) => this.instruments.view(card)),
    };
  }

  /** A user's view from rows already in hand (a user update builds its answer from memory). */
  userViewOf(user: User, contact: ContactRows, partner: PartnerConfig): Promise<UserView> {
    return this.readUserView({ user, contact }, partner);
  }

  async userView(user: User, partner: PartnerConfig, manager: EntityManager = this.dataSource.manager): Promise<UserView> {
    const sealed = await this.partnerView.seal(partner, 'encryptedUserData', () => this.users.decrypt(manager, user));
    return { userIdentifier: user.id, isPrimaryAccountHolder: user.isPrimary, status: user.status, ...sealed };
  }
}

function purseView(purse: PurseRow): PurseView {
  return {
    purseIdentifier: purse.id,
    purseType: purse.purseType,
    currency: purse.currency.trim(),
    availableBalance: Number(purse.availableBalance).toFixed(2),
    ledgerBalance: Number(purse.ledgerBalance).toFixed(2),
  };
}
