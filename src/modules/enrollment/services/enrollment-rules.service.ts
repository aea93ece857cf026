import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../common/errors/domain-error';
import type { ProgramConfig } from '../../../config/service-config';
import type { AccountType, IdentityKind } from '../../accounts/account.types';
import type { LimitKeyValue } from '../../accounts/services/account-limits.service';
import type { BusinessDataDto } from '../../business-profile/dtos/business-data.dto';
import type { AddressDto } from '../../user/dtos/address.dto';
import type { PhoneDto } from '../../user/dtos/phone.dto';
import type { AddressPlain, IdentityPlain, PhonePlain, UserDataPlain } from '../../user/user.types';
import type { CreateEnrollmentDto } from '../dtos/create-enrollment.dto';
import { Clock } from '../../../infrastructure/time/clock';
import { utcMillis } from '../../../infrastructure/time/utc';
import { AppConfig } from '../../../config/app-config';
import type { CrossFieldRules } from '../../../common/validation/valid-body';

const TERMS_WINDOW_MS = 720 * 60 * 60 * 1000;
const USER = 'encryptedUserData';
const ID = `${USER}.identifyingData`;

/** A request that passed every rule, with defaults resolved; nothing has been looked up yet. */
export interface EnrollmentPlan {
  /** The validated request, as the partner sent it (decrypted): its canonical form is the fingerprint. */
  request: CreateEnrollmentDto;
  program: ProgramConfig;
  accountType: AccountType;
  currency: string;
  identityKind: IdentityKind;
  /** Without the Matricula number when it comes from the scan capture (resolved at look-up). */
  user: UserDataPlain;
  onboardingID: string | null;
  /** Limit keys of the identity document; the default phone is added by `limitKeys`. */
  identityKey: LimitKeyValue | null;
  defaultPhone: string | null;
  businessData: BusinessDataDto | null;
}

/**
 * The enrollment rules that span fields or need the program: run by the body pipe right after the
 * DTO's field rules, before anything is looked up, locked or written (CONTRACT.md section 6). The
 * time-dependent terms window is judged apart (`checkTermsWindow`), on a first attempt only.
 */
@Injectable()
export class EnrollmentRulesService implements CrossFieldRules<CreateEnrollmentDto, EnrollmentPlan> {
  constructor(
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /**
   * SERVICE.md: businessData sent while accountType is consumer or omitted is 400/630/0, whatever it
   * holds (an empty or partial businessData included: its fields' own rules would otherwise answer first).
   */
  admit(body: unknown): void {
    if (!isRecord(body) || (body.accountType != null && body.accountType !== 'consumer')) return;
    const data = body.encryptedUserData;
    if (isRecord(data) && data.businessData != null) throw new DomainError('BUSINESS_DATA_NOT_ALLOWED', { field: `${USER}.businessData` });
  }

  check({ programCode }: { programCode: string | undefined }, dto: CreateEnrollmentDto): EnrollmentPlan {
    const program = programCode === undefined ? undefined : this.config.service.programs.get(programCode);
    if (!program) throw new DomainError('PROGRAM_NOT_ALLOWED');
    const data = dto.encryptedUserData;
    const accountType: AccountType = dto.accountType ?? 'consumer';
    const identity = this.identity(program, dto);
    this.business(program, accountType, data.businessData);
    const addresses = this.addresses(data.addresses ?? []);
    const phones = this.phones(program, data.phoneNumbers ?? []);
    if (program.kycRequired && !identity.plain.ssn && !identity.plain.itin && identity.kind !== 'matricula') {
      throw new DomainError('SSN_REQUIRED', { field: `${ID}.ssn` });
    }
    const currency = this.currency(program, dto.currency);
    if (Number.isNaN(utcMillis(dto.termsAcceptanceDateTime))) {
      throw new DomainError('INVALID_FIELD', { field: 'termsAcceptanceDateTime', property: 'termsAcceptanceDateTime' });
    }
    const user: UserDataPlain = {
      firstName: data.firstName,
      ...(data.middleName != null ? { middleName: data.middleName } : {}),
      lastName: data.lastName,
      identifyingData: { dateOfBirth: data.identifyingData.dateOfBirth, ...identity.plain },
      addresses,
      phoneNumbers: phones,
      ...(data.email ? { email: { emailAddress: data.email.emailAddress } } : {}),
    };
    return {
      request: dto,
      program,
      accountType,
      currency,
      identityKind: identity.kind,
      user,
      onboardingID: dto.onboardingID ?? null,
      identityKey: identity.key,
      defaultPhone: phones.find((phone) => phone.isDefault)?.number ?? null,
      businessData: data.businessData ?? null,
    };
  }

  /** The keys the limits count: the SSN or ITIN, then the default phone. */
  limitKeys(plan: EnrollmentPlan): LimitKeyValue[] {
    return [...(plan.identityKey ? [plan.identityKey] : []), ...(plan.defaultPhone ? [{ kind: 'phone' as const, value: plan.defaultPhone }] : [])];
  }

  private identity(program: ProgramConfig, dto: CreateEnrollmentDto): { kind: IdentityKind; plain: IdentityPlain; key: LimitKeyValue | null } {
    const id = dto.encryptedUserData.identifyingData;
    const suffix = id.ssnSuffix ?? id.last4SSN;
    const matricula = id.matriculaId != null || dto.onboardingID != null;
    // The table's 630 rows first; a suffix that disagrees with last4SSN is the 100/5 of CONTRACT section 9 only where no row applies.
    if (id.ssn != null && suffix != null) {
      throw new DomainError('SSN_AND_SUFFIX', { field: `${ID}.${id.ssnSuffix != null ? 'ssnSuffix' : 'last4SSN'}` });
    }
    if (matricula && (id.ssn != null || suffix != null)) {
      throw new DomainError('MATRICULA_AND_SSN', { field: id.matriculaId != null ? `${ID}.matriculaId` : 'onboardingID' });
    }
    if (id.ssnSuffix != null && id.last4SSN != null && id.ssnSuffix !== id.last4SSN) {
      throw new DomainError('INVALID_FIELD', { field: `${ID}.last4SSN`, property: 'last4SSN' });
    }
    if (matricula) {
      if (dto.onboardingID == null) throw new DomainError('REQUIRED_FIELD_MISSING', { field: 'onboardingID', property: 'onboardingID' });
      if (!program.matriculaEnabled) throw new DomainError('INVALID_ONBOARDING_ID', { field: 'onboardingID' });
      return { kind: 'matricula', plain: id.matriculaId != null ? { matriculaId: id.matriculaId } : {}, key: null };
    }
    if (id.ssn != null) {
      // A nine-digit number starting with 9 is an ITIN, stored and counted as one.
      if (id.ssn.startsWith('9')) return { kind: 'itin', plain: { itin: id.ssn }, key: { kind: 'itin', value: id.ssn } };
      return { kind: 'ssn', plain: { ssn: id.ssn }, key: { kind: 'ssn', value: id.ssn } };
    }
    if (suffix != null) return { kind: 'ssnSuffix', plain: { ssnSuffix: suffix }, key: null };
    return { kind: 'none', plain: {}, key: null };
  }

  /** A business account's: KYB on the program, and businessData (a consumer's businessData is refused by `admit`). */
  private business(program: ProgramConfig, accountType: AccountType, businessData: BusinessDataDto | undefined): void {
    if (accountType !== 'business') return;
    if (!program.kybEnabled) throw new DomainError('INVALID_FIELD', { field: 'accountType', property: 'accountType' });
    if (businessData == null) throw new DomainError('REQUIRED_FIELD_MISSING', { field: `${USER}.businessData`, property: 'businessData' });
  }

  /**
   * Types unique, home required, at most one default (home or business); home is the default when
   * none is marked. A missing home address is judged before the defaults: a lone address, default or
   * not, lacks home first (1042).
   */
  private addresses(addresses: AddressDto[]): AddressPlain[] {
    const seen = new Set<string>();
    addresses.forEach((address, index) => {
      if (seen.has(address.type)) throw new DomainError('DUPLICATE_TYPE', { field: `${USER}.addresses[${index}].type` });
      seen.add(address.type);
    });
    if (!seen.has('home')) throw new DomainError('HOME_ADDRESS_MISSING', { field: `${USER}.addresses` });
    const defaults = addresses.filter((address) => address.isDefault === true);
    if (defaults.length > 1 || defaults.some((address) => address.type === 'mailing')) {
      throw new DomainError('MULTIPLE_DEFAULT_ADDRESSES', { field: `${USER}.addresses` });
    }
    const defaultType = defaults[0]?.type ?? 'home';
    return addresses.map((address) => ({
      type: address.type,
      isDefault: address.type === defaultType,
      addressLine1: address.addressLine1,
      ...(address.addressLine2 != null ? { addressLine2: address.addressLine2 } : {}),
      city: address.city,
      state: address.state,
      zipCode: address.zipCode,
      countryCode: address.countryCode ?? 'US',
    }));
  }

  /** Phones: required when the program requires KYC; types unique; the first is the default when none is marked. */
  private phones(program: ProgramConfig, phones: PhoneDto[]): PhonePlain[] {
    if (program.kycRequired && phones.length === 0) throw new DomainError('PHONE_MISSING', { field: `${USER}.phoneNumbers` });
    const seen = new Set<string>();
    phones.forEach((phone, index) => {
      if (seen.has(phone.phoneType)) throw new DomainError('DUPLICATE_TYPE', { field: `${USER}.phoneNumbers[${index}].phoneType` });
      seen.add(phone.phoneType);
    });
    const marked = phones.filter((phone) => phone.isDefault === true);
    if (marked.length > 1) throw new DomainError('INVALID_FIELD', { field: `${USER}.phoneNumbers`, property: 'phoneNumbers (more than one default)' });
    const defaultIndex = marked.length === 1 ? phones.indexOf(marked[0] as PhoneDto) : 0;
    return phones.map((phone, index) => ({ phoneType: phone.phoneType, number: phone.number, isDefault: index === defaultIndex }));
  }

  private currency(program: ProgramConfig, currency: string | undefined): string {
    if (currency == null) return program.currencies[0] as string;
    if (!program.currencies.includes(currency)) throw new DomainError('CURRENCY_NOT_SUPPORTED', { field: 'currency' });
    return currency;
  }

  /** Inclusive window of 720 hours on either side of the time of submission (of the first attempt). */
  checkTermsWindow(plan: EnrollmentPlan): void {
    const accepted = utcMillis(plan.request.termsAcceptanceDateTime);
    if (Math.abs(this.clock.now().getTime() - accepted) > TERMS_WINDOW_MS) {
      throw new DomainError('TERMS_OUTSIDE_WINDOW', { field: 'termsAcceptanceDateTime' });
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
