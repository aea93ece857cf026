import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError } from '../../common/errors/domain-error';
import { AppConfig } from '../../config/app-config';
import type { PartnerConfig } from '../../config/service-config';
import { AccountView, AccountViewService } from '../account-views/services/account-view.service';
import { PaymentInstrumentService } from '../accounts/services/payment-instrument.service';
import { AccountSnapshot, AuditView, CareAuditService } from '../audit/care-audit.service';
import type { BusinessDataView } from '../business-profile/services/business-profile.codec';
import { BusinessProfileService } from '../business-profile/services/business-profile.service';
import { CardReplacementService } from '../care/services/card-replacement.service';
import { CardUnblockService } from '../care/services/card-unblock.service';
import { CareActionRunner, CareActor } from '../care/services/care-action-runner';
import { CareOperationsService } from '../care/services/care-operations.service';
import { EventLogService, EventView } from '../events/event-log.service';
import { cardReplacementRefusal, careRefusal } from '../lifecycle/account-lifecycle';
import { CallRunner } from '../locking/call-runner';
import { LockNames } from '../../infrastructure/database/lock.service';
import { UserRecordsService } from '../user/services/user-records.service';
import { IdentityRow, identitiesOf, identityValue, maskedEmail, maskedTail } from './identities';
import { BUSINESS_FIELD_OF, BusinessRevealField, OperationName, RevealField, SearchKind, Staff } from './staff';

export interface SearchHit {
  accountIdentifier: string;
  programCode: string;
  accountType: string;
  status: string;
}

export interface UserRow {
  userIdentifier: string;
  isPrimaryAccountHolder: boolean;
  status: string;
  name: string;
  /** Masked by default (CONTRACT section 14): each identity's last four, the year of birth, the email's first character and domain. */
  identities: IdentityRow[];
  dateOfBirthMasked: string;
  emailMasked: string | null;
}

/** One field of the business profile as the page shows it: the email and phone number masked (as a user's), each with its reveal. */
export interface BusinessFact {
  key: string;
  value: string;
  reveal: BusinessRevealField | null;
}

export interface AccountPage {
  view: AccountView;
  users: UserRow[];
  businessProfile: BusinessFact[] | null;
  events: Array<Omit<EventView, 'deliveries'>>;
  audit: AuditView[];
}

/**
 * The care console's use of the care services (CONTRACT section 14): search, the account page,
 * operations and audited reveals. Operations go through the same public methods, and the same
 * account lock, as the REST care API; the audit entry names the staff member and their reason.
 */
@Injectable()
export class CareConsoleService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly views: AccountViewService,
    private readonly users: UserRecordsService,
    private readonly instruments: PaymentInstrumentService,
    private readonly businessProfiles: BusinessProfileService,
    private readonly events: EventLogService,
    private readonly audit: CareAuditService,
    private readonly runner: CareActionRunner,
    private readonly operations: CareOperationsService,
    private readonly unblock: CardUnblockService,
    private readonly replacement: CardReplacementService,
    private readonly calls: CallRunner,
  ) {}

  /** Exact look-ups only: identifiers, or a full SSN/ITIN or phone number through the blind indexes. */
  async search(staff: Staff, kind: SearchKind, raw: string): Promise<SearchHit[]> {
    const value = kind === 'ssn' || kind === 'phone' ? raw.replace(/[\s().+-]/g, '') : raw.trim();
    const manager = this.dataSource.manager;
    let ids: string[];
    if (kind === 'accountIdentifier') ids = [value];
    else if (kind === 'paymentIdentifier') ids = [await this.instruments.accountIdOf(manager, value)].filter((id): id is string => id !== null);
    else if (kind === 'ssn') {
      if (!/^\d{9}$/.test(value)) throw new DomainError('INVALID_FIELD', { property: 'ssn' });
      ids = await this.users.accountIdsByIdentity(manager, 'ssn', value);
    } else {
      // Numbers are stored as ten North American digits (SERVICE.md): one written with its country code (+1) is the same number.
      const digits = /^1\d{10}$/.test(value) ? value.slice(1) : value;
      if (!/^\d{10}$/.test(digits)) throw new DomainError('INVALID_FIELD', { property: 'phone' });
      ids = await this.users.accountIdsByIdentity(manager, 'phone', digits);
    }
    const hits: SearchHit[] = [];
    for (const id of ids) {
      const account = await this.visible(staff, id);
      if (account) hits.push({ accountIdentifier: account.id, programCode: account.programCode, accountType: account.accountType, status: account.status });
    }
    return hits;
  }

  /**
   * Why the operation does not apply to the account in its current state (the lifecycle's rule,
   * careRefusal), or null when it does; 404 for an account outside the staff member's programs, as
   * for a missing one.
   */
  async refusal(staff: Staff, accountId: string, operation: OperationName, paymentIdentifier: string | null): Promise<string | null> {
    const account = await this.runner.requireVisible(actorOf(staff), accountId);
    if (operation !== 'replaceCard') return careRefusal(operation, account);
    const card = (await this.instruments.listFor(this.dataSource.manager, account.id)).find((found) => found.id === paymentIdentifier);
    // Another account's card, an unknown one or none: not found, as the form's post and the API answer.
    if (!card) throw new DomainError('PAYMENT_INSTRUMENT_NOT_FOUND');
    return cardReplacementRefusal(account, card);
  }

  async page(staff: Staff, accountId: string): Promise<AccountPage> {
    await this.runner.requireVisible(actorOf(staff), accountId);
    const manager = this.dataSource.manager;
    const view = await this.views.render(accountId, this.partnerOf(staff));
    const users = await Promise.all(
      (await this.users.usersOf(manager, accountId)).map(async (user) => {
        const plain = await this.users.decrypt(manager, user);
        const id = plain.identifyingData;
        return {
          userIdentifier: user.id,
          isPrimaryAccountHolder: user.isPrimary,
          status: user.status,
          name: [plain.firstName, plain.middleName, plain.lastName].filter(Boolean).join(' '),
          identities: identitiesOf(id),
          dateOfBirthMasked: `${id.dateOfBirth.slice(0, 4)}-••-••`,
          emailMasked: plain.email ? maskedEmail(plain.email.emailAddress) : null,
        };
      }),
    );
    return {
      view,
      users,
      businessProfile: view.account.accountType === 'business' ? businessFacts(await this.businessProfiles.viewOf(manager, accountId)) : null,
      events: await this.events.listForAccount(accountId),
      audit: await this.audit.list(accountId),
    };
  }

  /** One care operation, locked on the account like the REST call; the audit entry carries the staff member and reason. */
  async operate(staff: Staff, accountId: string, operation: OperationName, reason: string, paymentIdentifier?: string): Promise<void> {
    const who: CareActor = { ...actorOf(staff), reason };
    await this.calls.locked([LockNames.account(accountId)], async (call) => {
      switch (operation) {
        case 'lock':
          return this.operations.lock(call, who, accountId);
        case 'unlock':
          return this.operations.unlock(call, who, accountId);
        case 'close':
          return this.operations.close(call, who, accountId);
        case 'fraudBlock':
          return this.operations.fraudBlock(call, who, accountId);
        case 'removeFraudBlock':
          return this.unblock.removeFraudBlock(call, who, accountId, 0);
        case 'ofacClear':
          return this.operations.clearOfac(call, who, accountId);
        case 'kycGateClear':
          return this.operations.clearKycGate(call, who, accountId);
        case 'replaceCard':
          return this.replacement.replace(call, who, accountId, paymentIdentifier ?? '');
      }
    });
  }

  /**
   * The full value of one masked field; the reveal itself is an audit entry (who, when, which user and
   * field). A field the user does not hold, or holds only as the page already shows it (an SSN's last
   * four), is not applicable and not audited.
   */
  async reveal(staff: Staff, accountId: string, userId: string, field: RevealField): Promise<string> {
    const who = actorOf(staff);
    return this.dataSource.transaction(async (manager) => {
      const account = await this.runner.requireVisible(who, accountId, manager);
      const user = await this.users.findById(manager, account.id, userId);
      if (!user) throw new DomainError('ACCOUNT_NOT_FOUND');
      const plain = await this.users.decrypt(manager, user);
      const id = plain.identifyingData;
      const value = field === 'dateOfBirth' ? id.dateOfBirth : field === 'email' ? plain.email?.emailAddress : identityValue(id, field);
      if (value === undefined) throw new DomainError('CARE_NOT_APPLICABLE');
      await this.recordReveal(manager, staff, account.id, { userIdentifier: user.id, field });
      return value;
    });
  }

  /** The full business email or phone number, audited like a user's field; one the profile does not hold (or no profile) is not applicable. */
  async revealBusiness(staff: Staff, accountId: string, field: BusinessRevealField): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      const account = await this.runner.requireVisible(actorOf(staff), accountId, manager);
      const value = (await this.businessProfiles.viewOf(manager, account.id))?.[BUSINESS_FIELD_OF[field]];
      if (value === undefined || value === null) throw new DomainError('CARE_NOT_APPLICABLE');
      await this.recordReveal(manager, staff, account.id, { field });
      return value;
    });
  }

  /** A reveal's audit entry: who, when, and which field (the account's state before and after is the same). */
  private async recordReveal(manager: EntityManager, staff: Staff, accountId: string, detail: Record<string, unknown>): Promise<void> {
    const who = actorOf(staff);
    const snapshot = snapshotOf(await this.views.render(accountId, this.partnerOf(staff), manager));
    await this.audit.record(manager, { accountId, actor: who.actor, staff: who.staff, action: 'pii.reveal', before: snapshot, after: snapshot, detail });
  }

  /** The care client whose view the console shows; its encryption (if any) is never applied: the console is not a partner. */
  private partnerOf(staff: Staff): PartnerConfig {
    const partner = this.config.service.partnerById(staff.partnerId);
    if (!partner) throw new Error(`care partner ${staff.partnerId} is no longer configured`);
    return { ...partner, encryption: null };
  }

  private async visible(staff: Staff, accountId: string) {
    try {
      return await this.runner.requireVisible(actorOf(staff), accountId);
    } catch (error) {
      if (error instanceof DomainError) return null;
      throw error;
    }
  }
}

/** The audit actor of a console action: `console:` and the staff member's email (or subject), plus the identity itself. */
export function actorOf(staff: Staff): CareActor {
  return { actor: `console:${staff.email ?? staff.subject}`, programs: staff.programs, staff: { subject: staff.subject, email: staff.email } };
}

/** The profile's fields as the page lists them, the email and phone number masked (CONTRACT section 14: personal data masked by default). */
function businessFacts(profile: BusinessDataView | null): BusinessFact[] | null {
  if (!profile) return null;
  return Object.entries(profile).map(([key, value]): BusinessFact => {
    if (key === BUSINESS_FIELD_OF.businessEmail) return { key, value: maskedEmail(String(value)), reveal: 'businessEmail' };
    if (key === BUSINESS_FIELD_OF.businessPhone) return { key, value: maskedTail(String(value)), reveal: 'businessPhone' };
    return { key, value: typeof value === 'object' ? JSON.stringify(value) : String(value), reveal: null };
  });
}

function snapshotOf(view: AccountView): AccountSnapshot {
  const { status, statusReason, kycPendingGate, accountCycleDay } = view.account;
  return {
    status,
    statusReason,
    kycPendingGate,
    accountCycleDay,
    paymentInstruments: view.paymentInstruments.map((card) => ({ paymentIdentifier: card.paymentIdentifier, status: card.status })),
  };
}
