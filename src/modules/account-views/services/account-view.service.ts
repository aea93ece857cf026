import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import type { PartnerConfig } from '../../../config/service-config';
import { PartnerViewService } from '../../../infrastructure/crypto/partner-view.service';
import type { Account, PaymentInstrument, Purse, StoredAccountData } from '../../accounts/account.types';
import type { PurseRow } from '../../accounts/account-columns';
import { AccountsService, isAccountId } from '../../accounts/services/accounts.service';
import { PaymentInstrumentService, PaymentInstrumentView } from '../../accounts/services/payment-instrument.service';
import { UserView, UserViewService } from '../../user/services/user-view.service';
import type { User, UserDataPlain } from '../../user/user.types';
import { AccountRead, AccountReadRepository, AccountScope } from '../repositories/account-read.repository';

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

/**
 * CONTRACT section 6: while an account was never activated (OFAC hold, bill cycle missing, or an
 * enrollment interrupted between its phases), it shows no cycle day and no card, even when the
 * interrupted call already wrote them: they are the enrollment's, shown once it completes. Care
 * locking, blocking or closing it meanwhile changes nothing to that (README Decisions: `null` only
 * while the account was never activated).
 */
function neverActivated(account: Account): boolean {
  return account.activatedAt === null;
}

function accountDataView(account: Account, purses: PurseRow[], sealed: Record<string, string>): AccountDataView {
  return {
    accountIdentifier: account.id,
    programCode: account.programCode,
    accountType: account.accountType,
    status: account.status,
    statusReason: account.statusReason,
    kycPendingGate: account.kycPendingGate,
    accountCycleDay: neverActivated(account) ? null : account.accountCycleDay,
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
    private readonly accounts: AccountsService,
    private readonly users: UserViewService,
    private readonly instruments: PaymentInstrumentService,
    private readonly partnerView: PartnerViewService,
    private readonly reads: AccountReadRepository,
  ) {}

  /**
   * `{account, user, paymentInstruments}` of an account and its primary user, exactly as GET account
   * answers, read in one statement. Without a scope the caller has already checked who may see it.
   */
  async render(accountId: string, partner: PartnerConfig, manager?: EntityManager, scope: AccountScope | null = null): Promise<AccountView> {
    const read = isAccountId(accountId) ? await this.reads.account(manager, accountId, scope, this.partnerView.receivesEncryptedData(partner)) : null;
    if (!read) throw new DomainError('ACCOUNT_NOT_FOUND');
    return this.viewOf(read, partner);
  }

  /** Every user of a partner's account, primary first, read in one statement with the tenancy check. */
  async renderUsers(accountId: string, partner: PartnerConfig, scope: AccountScope): Promise<UserView[]> {
    const read = isAccountId(accountId) ? await this.reads.users(accountId, scope, this.partnerView.receivesEncryptedData(partner)) : null;
    if (!read) throw new DomainError('ACCOUNT_NOT_FOUND');
    const views: UserView[] = [];
    for (const { user, contact } of read) views.push(await this.users.viewOf(user, contact, partner));
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
      user: await this.users.viewOf(holder, contact, partner),
      paymentInstruments: neverActivated(account) ? [] : cards.map((card) => this.instruments.view(card)),
    };
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
    return {
      account: accountDataView(rows.account, [rows.purse], sealedAccount),
      user: await this.users.viewOfNew(rows.user, rows.userData, partner),
      paymentInstruments: neverActivated(rows.account) ? [] : rows.cards.map((card) => this.instruments.view(card)),
    };
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
