import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import type { PartnerConfig } from '../../../config/service-config';
import { User } from '../../user/entities/user.entity';
import { UserDataPlain, UserRecordsService } from '../../user/services/user-records.service';
import { Account } from '../entities/account.entity';
import { PaymentInstrument } from '../entities/payment-instrument.entity';
import { Purse } from '../entities/purse.entity';
import { AccountRecordsService, StoredAccountData } from './account-records.service';
import { PartnerViewService } from './partner-view.service';
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

function accountDataView(account: Account, purses: Purse[], sealed: Record<string, string>): AccountDataView {
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
    private readonly accounts: AccountRecordsService,
    private readonly users: UserRecordsService,
    private readonly instruments: PaymentInstrumentService,
    private readonly partnerView: PartnerViewService,
  ) {}

  /** `{account, user, paymentInstruments}` of an account and its primary user, exactly as GET account answers. */
  async render(accountId: string, partner: PartnerConfig, manager: EntityManager = this.dataSource.manager): Promise<AccountView> {
    const account = await this.accounts.findById(manager, accountId);
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND');
    const user = await this.users.primaryOf(manager, account.id);
    if (!user) throw new Error(`account ${account.id} has no primary user`);
    // One after the other: the manager may hold a single connection (a transaction or the call's locks).
    const accountView = await this.accountView(account, partner, manager, user);
    const userView = await this.userView(user, partner, manager);
    const cards = await this.instruments.listFor(manager, account.id);
    return { account: accountView, user: userView, paymentInstruments: cards.map((card) => this.instruments.view(card)) };
  }

  async accountView(account: Account, partner: PartnerConfig, manager: EntityManager, holder?: User): Promise<AccountDataView> {
    const purses = await this.accounts.pursesOf(manager, account.id);
    const sealed = await this.partnerView.seal(partner, 'encryptedAccountData', async () => {
      const owner = holder ?? (await this.users.primaryOf(manager, account.id));
      return {
        accountHolder: owner ? this.users.namesOf(owner) : null,
        ...(this.accounts.accountData(account) ?? {}),
      };
    });
    return accountDataView(account, purses, sealed);
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

  async userView(user: User, partner: PartnerConfig, manager: EntityManager = this.dataSource.manager): Promise<UserView> {
    const sealed = await this.partnerView.seal(partner, 'encryptedUserData', () => this.users.decrypt(manager, user));
    return { userIdentifier: user.id, isPrimaryAccountHolder: user.isPrimary, status: user.status, ...sealed };
  }

  async paymentInstrumentViews(accountId: string, manager: EntityManager = this.dataSource.manager): Promise<PaymentInstrumentView[]> {
    return (await this.instruments.listFor(manager, accountId)).map((card) => this.instruments.view(card));
  }
}

function purseView(purse: Purse): PurseView {
  return {
    purseIdentifier: purse.id,
    purseType: purse.purseType,
    currency: purse.currency.trim(),
    availableBalance: Number(purse.availableBalance).toFixed(2),
    ledgerBalance: Number(purse.ledgerBalance).toFixed(2),
  };
}

