import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import type { AppConfig } from '../../../config/app-config';
import { parseServiceConfig } from '../../../config/service-config';
import { plainToInstance } from 'class-transformer';
import { CreateEnrollmentDto } from '../dtos/create-enrollment.dto';
import { Clock } from '../../../infrastructure/time/clock';
import { EnrollmentRulesService } from './enrollment-rules.service';
import { mockOf } from '../../../../test/support/mock-of';

const NOW = new Date('2026-06-15T12:00:00Z');
const HOURS = 60 * 60 * 1000;

const service = parseServiceConfig({
  programs: [
    { programCode: 'kyc', currencies: ['USD', 'MXN'], kycRequired: true, kybEnabled: true, matriculaEnabled: true },
    { programCode: 'lite', currencies: ['USD'], kycRequired: false },
  ],
  partners: [{ partnerId: 'a', clientId: 'a', clientSecret: 's', programs: ['kyc', 'lite'], scopes: ['enrollments'] }],
});

function sutWith(now = NOW): EnrollmentRulesService {
  return new EnrollmentRulesService(mockOf<Clock>({ now: jest.fn(() => now) }), mockOf<AppConfig>({ service }));
}

const home = { type: 'home', addressLine1: '1 Main St', city: 'Austin', state: 'TX', zipCode: '78701' };
const mailing = { ...home, type: 'mailing', addressLine1: 'PO Box 9' };
const business = { ...home, type: 'business', addressLine1: '9 Market St' };
const mobile = { phoneType: 'mobile', number: '5125550100' };
const work = { phoneType: 'work', number: '5125550199' };

function enrollment(user: Record<string, unknown> = {}, top: Record<string, unknown> = {}): CreateEnrollmentDto {
  return plainToInstance(CreateEnrollmentDto, {
    requestId: 'r-1',
    termsAcceptanceDateTime: NOW.toISOString(),
    encryptedUserData: {
      firstName: 'Ana',
      lastName: 'Núñez',
      identifyingData: { dateOfBirth: '1990-01-01', ssn: '123456789' },
      addresses: [home],
      phoneNumbers: [mobile],
      ...user,
    },
    ...top,
  });
}

const identity = (data: Record<string, unknown>) => ({ identifyingData: { dateOfBirth: '1990-01-01', ...data } });

function refusal(run: () => unknown): { key: string; options: { field?: string } } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error as { key: string; options: { field?: string } };
  }
}

describe(EnrollmentRulesService.name, () => {
  const sut = sutWith();
  const check = (dto: CreateEnrollmentDto, programCode = 'kyc') => sut.check({ programCode }, dto);

  it('a valid consumer enrollment: defaults resolved, SSN and default phone as limit keys', () => {
    const plan = check(enrollment());
    expect(plan).toMatchObject({
      accountType: 'consumer',
      currency: 'USD',
      identityKind: 'ssn',
      onboardingID: null,
      businessData: null,
      defaultPhone: '5125550100',
    });
    expect(plan.user.addresses).toEqual([{ ...home, isDefault: true, countryCode: 'US' }]);
    expect(sut.limitKeys(plan)).toEqual([
      { kind: 'ssn', value: '123456789' },
      { kind: 'phone', value: '5125550100' },
    ]);
  });

  it('an unknown program is refused before anything else', () => {
    expect(refusal(() => check(enrollment(), 'nope'))).toMatchObject({ key: 'PROGRAM_NOT_ALLOWED' });
  });

  describe('identity', () => {
    it('a nine-digit number starting with 9 is an ITIN, stored and counted as one', () => {
      const plan = check(enrollment(identity({ ssn: '912345678' })));
      expect(plan.identityKind).toBe('itin');
      expect(plan.identityKey).toEqual({ kind: 'itin', value: '912345678' });
    });

    it('an SSN suffix alone, in a program without KYC: no identity limit key', () => {
      const plan = check(enrollment({ ...identity({ ssnSuffix: '6789' }), phoneNumbers: [] }), 'lite');
      expect(plan).toMatchObject({ identityKind: 'ssnSuffix', identityKey: null, defaultPhone: null });
    });

    it.each([
      ['SSN and suffix', identity({ ssn: '123456789', ssnSuffix: '6789' }), {}, 'SSN_AND_SUFFIX'],
      ['suffix and last4SSN that differ', identity({ ssnSuffix: '6789', last4SSN: '1111' }), {}, 'INVALID_FIELD'],
      ['Matricula and SSN', identity({ ssn: '123456789', matriculaId: 'M1' }), { onboardingID: 'o-1' }, 'MATRICULA_AND_SSN'],
      ['Matricula without onboardingID', identity({ matriculaId: 'M1' }), {}, 'REQUIRED_FIELD_MISSING'],
      ['no SSN, ITIN or Matricula in a KYC program', identity({}), {}, 'SSN_REQUIRED'],
    ])('refuses %s', (_label, user, top, key) => {
      expect(refusal(() => check(enrollment(user, top)))).toMatchObject({ key });
    });

    it('Matricula: needs a program that enables it; satisfies KYC without an SSN', () => {
      const dto = enrollment(identity({ matriculaId: 'M1' }), { onboardingID: 'o-1' });
      expect(check(dto)).toMatchObject({ identityKind: 'matricula', identityKey: null, onboardingID: 'o-1' });
      expect(refusal(() => check({ ...dto, encryptedUserData: { ...dto.encryptedUserData, phoneNumbers: [] } } as CreateEnrollmentDto, 'lite'))).toMatchObject({
        key: 'INVALID_ONBOARDING_ID',
      });
    });
  });

  describe('business accounts', () => {
    const businessData = { businessName: 'Tacos LLC' };

    it('consumer or omitted accountType: any businessData is refused before the field rules (admit), an absent or null one is not', () => {
      for (const top of [{}, { accountType: 'consumer' }, { accountType: null }]) {
        for (const data of [businessData, {}, { businessName: 'A' }]) {
          expect(refusal(() => sut.admit(enrollment({ businessData: data }, top)))).toMatchObject({
            key: 'BUSINESS_DATA_NOT_ALLOWED',
            options: { field: 'encryptedUserData.businessData' },
          });
        }
        expect(refusal(() => sut.admit(enrollment({ businessData: null }, top)))).toBeUndefined();
        expect(refusal(() => sut.admit(enrollment({}, top)))).toBeUndefined();
      }
      // A business account, an accountType the field rules refuse, and bodies of any other shape are left to the rules after.
      for (const body of [
        enrollment({ businessData }, { accountType: 'business' }),
        enrollment({ businessData }, { accountType: 'guild' }),
        null,
        'text',
        [1],
        { encryptedUserData: 'jwe' },
      ]) {
        expect(refusal(() => sut.admit(body))).toBeUndefined();
      }
    });

    it('need KYB enabled and businessData', () => {
      expect(check(enrollment({ businessData }, { accountType: 'business' })).businessData).toEqual(businessData);
      expect(refusal(() => check(enrollment({}, { accountType: 'business' })))).toMatchObject({ key: 'REQUIRED_FIELD_MISSING' });
      expect(refusal(() => check(enrollment({ ...identity({ ssnSuffix: '1234' }), businessData }, { accountType: 'business' }), 'lite'))).toMatchObject({
        key: 'INVALID_FIELD',
        options: { field: 'accountType' },
      });
    });
  });

  describe('addresses', () => {
    it('home is the default when none is marked; a marked business address takes it', () => {
      expect(check(enrollment({ addresses: [mailing, home] })).user.addresses.map((a) => [a.type, a.isDefault])).toEqual([
        ['mailing', false],
        ['home', true],
      ]);
      expect(check(enrollment({ addresses: [home, { ...business, isDefault: true }] })).user.addresses.map((a) => a.isDefault)).toEqual([false, true]);
    });

    it.each([
      ['a duplicated type', [home, { ...home }], 'DUPLICATE_TYPE'],
      [
        'two defaults',
        [
          { ...home, isDefault: true },
          { ...business, isDefault: true },
        ],
        'MULTIPLE_DEFAULT_ADDRESSES',
      ],
      ['a mailing default', [home, { ...mailing, isDefault: true }], 'MULTIPLE_DEFAULT_ADDRESSES'],
      ['no home address', [business], 'HOME_ADDRESS_MISSING'],
    ])('refuses %s', (_label, addresses, key) => {
      expect(refusal(() => check(enrollment({ addresses })))).toMatchObject({ key });
    });
  });

  describe('phones', () => {
    it('the first phone is the default unless another is marked', () => {
      expect(check(enrollment({ phoneNumbers: [mobile, work] })).defaultPhone).toBe(mobile.number);
      expect(check(enrollment({ phoneNumbers: [mobile, { ...work, isDefault: true }] })).defaultPhone).toBe(work.number);
    });

    it.each([
      ['none in a KYC program', [], 'PHONE_MISSING'],
      ['a duplicated type', [mobile, { ...mobile, number: '5125550111' }], 'DUPLICATE_TYPE'],
      [
        'two defaults',
        [
          { ...mobile, isDefault: true },
          { ...work, isDefault: true },
        ],
        'INVALID_FIELD',
      ],
    ])('refuses %s', (_label, phoneNumbers, key) => {
      expect(refusal(() => check(enrollment({ phoneNumbers })))).toMatchObject({ key });
    });
  });

  it('currency: the program first by default; one it does not offer is refused', () => {
    expect(check(enrollment({}, { currency: 'MXN' })).currency).toBe('MXN');
    expect(refusal(() => check(enrollment({}, { currency: 'EUR' })))).toMatchObject({ key: 'CURRENCY_NOT_SUPPORTED' });
  });

  it('terms acceptance: a date is required; the window is 720 hours either side, inclusive', () => {
    expect(refusal(() => check(enrollment({}, { termsAcceptanceDateTime: 'yesterday' })))).toMatchObject({ key: 'INVALID_FIELD' });
    const at = (offsetHours: number) => check(enrollment({}, { termsAcceptanceDateTime: new Date(NOW.getTime() + offsetHours * HOURS).toISOString() }));
    expect(() => sut.checkTermsWindow(at(-720))).not.toThrow();
    expect(() => sut.checkTermsWindow(at(720))).not.toThrow();
    expect(refusal(() => sut.checkTermsWindow(at(-720.001)))).toMatchObject({ key: 'TERMS_OUTSIDE_WINDOW' });
    expect(refusal(() => sut.checkTermsWindow(at(720.001)))).toMatchObject({ key: 'TERMS_OUTSIDE_WINDOW' });
  });

  it('terms acceptance without an offset is UTC, whatever the server time zone (SERVICE.md: UTC across the service)', () => {
    // In a process east of UTC: read as local time, 14:00 would be 05:00Z, 727 hours before NOW and outside the window.
    const script = [
      "const { EnrollmentRulesService } = require('./src/modules/enrollment/services/enrollment-rules.service');",
      `const sut = new EnrollmentRulesService({ now: () => new Date('${NOW.toISOString()}') }, {});`,
      "const verdict = (t) => { try { sut.checkTermsWindow({ request: { termsAcceptanceDateTime: t } }); return 'inside'; } catch { return 'outside'; } };",
      "process.stdout.write(JSON.stringify(['2026-05-16T14:00:00', '2026-05-16T11:59:00', '2026-05-16T23:00:00+09:00'].map(verdict)));",
    ].join('\n');
    const out = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
      cwd: path.resolve(__dirname, '../../../..'),
      env: { ...process.env, TZ: 'Asia/Tokyo', TS_NODE_PROJECT: 'tsconfig.spec.json' },
    });
    expect(JSON.parse(out.toString())).toEqual(['inside', 'outside', 'inside']);
  });
});
