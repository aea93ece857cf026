import { compactDecrypt, importJWK, CryptoKey } from 'jose';
import type { ApiResponse } from '../client/enrollment-client';
import { EnrollmentRequest, EnrollmentRequestFactory, merge, validBusinessData } from './support/enrollment-factory';
import { encryptionPartnerKeys, startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';
const HOURS = 60 * 60 * 1000;

const x = (n: number, c = 'a') => c.repeat(n);
const name = (n: number) => `J${x(n - 1)}`;
const home = (overrides: Record<string, unknown> = {}) => ({
  type: 'home',
  addressLine1: '100 Main St',
  city: 'Austin',
  state: 'TX',
  zipCode: '78701',
  ...overrides,
});
const user = (overrides: Record<string, unknown>) => ({ encryptedUserData: overrides });
const address = (overrides: Record<string, unknown>) => user({ addresses: [home(overrides)] });

describe('Enrollment validation (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('enrollment-validation');
  });

  afterAll(async () => {
    await app.close();
  });

  const enroll = (request: EnrollmentRequest, program = 'sandbox') => app.client().post(`/v1/programs/${program}/enrollments`, request);

  function expectDetail(res: ApiResponse, http: number, code: number, subCode: number, description?: string, field?: string): void {
    expect({ status: res.status, first: res.body.responseDetails[0] }).toMatchObject({
      status: http,
      first: { code, subCode, ...(description ? { description } : {}), ...(field ? { field } : {}) },
    });
  }

  async function expectOk(overrides: Record<string, unknown>, program = 'sandbox'): Promise<void> {
    const res = await enroll(EnrollmentRequestFactory.build(overrides), program);
    expect({ status: res.status, first: res.body.responseDetails[0] }).toEqual({ status: 200, first: { code: 0, subCode: 0, description: 'Success' } });
  }

  async function expectRejected(overrides: Record<string, unknown>, http: number, code: number, subCode: number, description?: string, field?: string) {
    const res = await enroll(EnrollmentRequestFactory.build(overrides));
    expectDetail(res, http, code, subCode, description, field);
    return res;
  }

  describe('KYC table', () => {
    it.each(['04/01/1990', '1990-4-1', '1990-02-30', '19900401', '1990-04-01T00:00:00Z'])('dateOfBirth %s: 400/700', async (dateOfBirth) => {
      await expectRejected(
        user({ identifyingData: { dateOfBirth } }),
        400,
        700,
        0,
        'identifyingData.dateOfBirth must be in the form YYYY-MM-DD',
        'encryptedUserData.identifyingData.dateOfBirth',
      );
    });

    it('ssn with ssnSuffix or last4SSN: 400/630', async () => {
      await expectRejected(user({ identifyingData: { ssnSuffix: '1234' } }), 400, 630, 0, 'Cannot pass both last4SSN and SSN');
      await expectRejected(user({ identifyingData: { last4SSN: '1234' } }), 400, 630, 0, 'Cannot pass both last4SSN and SSN');
      // A row of the table applies, so it answers, not the 100/5 of a suffix that disagrees with last4SSN (CONTRACT section 9).
      await expectRejected(user({ identifyingData: { ssnSuffix: '1234', last4SSN: '5678' } }), 400, 630, 0, 'Cannot pass both last4SSN and SSN');
    });

    it('duplicate address types: 400/1020', async () => {
      await expectRejected(user({ addresses: [home(), home({ isDefault: false })] }), 400, 1020, 0, 'Duplicated type is not allowed');
    });

    it('more than one default address, or a mailing default: 400/1040', async () => {
      const both = [home({ isDefault: true }), home({ type: 'business', isDefault: true })];
      await expectRejected(user({ addresses: both }), 400, 1040, 0, 'For card shipment, either a home or business address can be the default');
      await expectRejected(user({ addresses: [home(), home({ type: 'mailing', isDefault: true })] }), 400, 1040, 0);
    });

    it('a business address may be the default; home is the default when none is marked', async () => {
      await expectOk(user({ addresses: [home(), home({ type: 'business', isDefault: true })] }));
      await expectOk(user({ addresses: [home({ type: 'mailing' }), home()] }));
    });

    it('home address missing: 400/1042', async () => {
      await expectRejected(user({ addresses: [home({ type: 'mailing' })] }), 400, 1042, 0, 'Home address is missing');
      // Whatever else is wrong with the one address sent, a missing home address is what it lacks first.
      await expectRejected(user({ addresses: [home({ type: 'mailing', isDefault: true })] }), 400, 1042, 0, 'Home address is missing');
      await expectRejected(user({ addresses: [home({ type: 'business', isDefault: true })] }), 400, 1042, 0, 'Home address is missing');
      await expectRejected(user({ addresses: [] }), 400, 1042, 0);
      await expectRejected(user({ addresses: undefined }), 400, 1042, 0);
    });

    it('phone numbers missing while KYC is required: 400/101; not required by a program without KYC', async () => {
      await expectRejected(user({ phoneNumbers: undefined }), 400, 101, 0, 'phoneNumbers userData sections missing, check your JSON');
      await expectRejected(user({ phoneNumbers: [] }), 400, 101, 0);
      await expectOk(user({ phoneNumbers: undefined }), 'lite');
    });

    it('Matricula ID with ssn or ssnSuffix: 400/630/0', async () => {
      await expectRejected(user({ identifyingData: { matriculaId: 'MX123456' } }), 400, 630, 0, 'Cannot pass both matriculaId and ssn or last4ssn');
      await expectRejected(
        { onboardingID: '00000000-0000-4000-8000-000000000000', ...user({ identifyingData: { ssn: undefined, ssnSuffix: '1234' } }) },
        400,
        630,
        0,
        'Cannot pass both matriculaId and ssn or last4ssn',
      );
      await expectRejected(
        user({ identifyingData: { ssn: undefined, matriculaId: 'MX123456', ssnSuffix: '1234', last4SSN: '5678' } }),
        400,
        630,
        0,
        'Cannot pass both matriculaId and ssn or last4ssn',
      );
    });

    it('ssn required when the program requires KYC and the enrollment is not Matricula: 400/200/0', async () => {
      await expectRejected(user({ identifyingData: { ssn: undefined } }), 400, 200, 0, 'ssn is required');
      await expectRejected(user({ identifyingData: { ssn: undefined, ssnSuffix: '1234' } }), 400, 200, 0, 'ssn is required');
      await expectOk(user({ identifyingData: { ssn: undefined, ssnSuffix: '1234' } }), 'lite');
    });

    it.each(['12345678', '1234567890', '12345678a'])('invalid ssn %s: 400/760', async (ssn) => {
      await expectRejected(user({ identifyingData: { ssn } }), 400, 760, 0, 'Invalid SSN');
    });

    it('invalid ssnSuffix: 400/760', async () => {
      await expectRejected(user({ identifyingData: { ssn: undefined, ssnSuffix: '123' } }), 400, 760, 0);
    });
  });

  describe('currency and terms', () => {
    it.each(['XYZ', 'usd', 'US', 42])('invalid ISO currency %s: 400/650/0', async (currency) => {
      await expectRejected({ currency }, 400, 650, 0, 'Invalid Currency Code');
    });

    it('a valid code the program does not offer: 400/650/430; the same code on a program that offers it succeeds', async () => {
      await expectRejected({ currency: 'MXN' }, 400, 650, 430, 'This product does not support this currency');
      await expectOk({ currency: 'MXN' }, 'lite');
    });

    it('currency defaults to the program currency', async () => {
      const res = await enroll(EnrollmentRequestFactory.build({ currency: undefined }));
      expect(res.status).toBe(200);
      expect((res.body.account as { currency: string }).currency).toBe('USD');
    });

    it('termsAcceptanceDateTime inside 720 hours either side succeeds, outside is 400/620', async () => {
      const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
      await expectOk({ termsAcceptanceDateTime: at(-719.9 * HOURS) });
      await expectOk({ termsAcceptanceDateTime: at(719.9 * HOURS) });
      const description = 'termsAcceptanceDateTime must be within 720 hours of the time it was submitted';
      await expectRejected({ termsAcceptanceDateTime: at(-720.1 * HOURS) }, 400, 620, 0, description);
      await expectRejected({ termsAcceptanceDateTime: at(720.1 * HOURS) }, 400, 620, 0, description);
    });

    it('accepts a date-time with an offset', async () => {
      const local = new Date(Date.now() - 2 * HOURS).toISOString().replace('Z', '+00:00');
      await expectOk({ termsAcceptanceDateTime: local.replace(/\.\d{3}/, '') });
    });
  });

  describe('user data lengths (code 400) and characters (code 640)', () => {
    it('firstName: 35 ok, 36 is 400/501, invalid characters 640/501, Spanish letters allowed', async () => {
      await expectOk(user({ firstName: name(35) }));
      await expectRejected(user({ firstName: name(36) }), 400, 400, 501, undefined, 'encryptedUserData.firstName');
      await expectRejected(user({ firstName: 'Jo<se' }), 400, 640, 501);
      await expectOk(user({ firstName: 'Ñandú María' }));
    });

    it('lastName: 2 and 35 ok, 1 and 36 are 400/502, invalid characters 640/502', async () => {
      await expectOk(user({ lastName: 'Li' }));
      await expectOk(user({ lastName: name(35) }));
      await expectRejected(user({ lastName: 'L' }), 400, 400, 502);
      await expectRejected(user({ lastName: name(36) }), 400, 400, 502);
      await expectRejected(user({ lastName: 'Smith$' }), 400, 640, 502);
    });

    it('middleName: invalid characters 640/503', async () => {
      await expectRejected(user({ middleName: 'A;' }), 400, 640, 503);
      await expectOk(user({ middleName: "D'Arcy-Lee" }));
    });

    it('city: 25 ok, 26 is 400/504, invalid characters 640/504', async () => {
      await expectOk(address({ city: x(25) }));
      await expectRejected(address({ city: x(26) }), 400, 400, 504, undefined, 'encryptedUserData.addresses[0].city');
      await expectRejected(address({ city: 'Aus@tin' }), 400, 640, 504);
    });

    it('addressLine1: 2 and 40 ok, 1 and 41 are 400/505, invalid characters 640/505', async () => {
      await expectOk(address({ addressLine1: '1A' }));
      await expectOk(address({ addressLine1: x(40) }));
      await expectRejected(address({ addressLine1: '1' }), 400, 400, 505);
      await expectRejected(address({ addressLine1: x(41) }), 400, 400, 505);
      await expectRejected(address({ addressLine1: '100 {Main}' }), 400, 640, 505);
    });

    it('addressLine2: 40 ok, 41 is 400/506, invalid characters 640/506', async () => {
      await expectOk(address({ addressLine2: x(40) }));
      await expectRejected(address({ addressLine2: x(41) }), 400, 400, 506);
      await expectRejected(address({ addressLine2: 'Apt "4"' }), 400, 640, 506);
    });

    it('phone, email, state and zip formats: 770, 750, 780, 350', async () => {
      await expectRejected(user({ phoneNumbers: [{ phoneType: 'mobile', number: '12345' }] }), 400, 770, 0);
      await expectRejected(user({ email: { emailAddress: 'not-an-email' } }), 400, 750, 0);
      // Invisible format characters (a right-to-left override, a zero-width space) make an address read as
      // another one on a care agent's screen: refused; a non-ASCII letter is not.
      await expectRejected(user({ email: { emailAddress: 'jose\u202Emoc.elpmaxe@example.com' } }), 400, 750, 0);
      await expectRejected(user({ email: { emailAddress: 'jo\u200Bse@example.com' } }), 400, 750, 0);
      await expectOk(user({ email: { emailAddress: 'jos\u00E9@example.com' } }));
      await expectRejected(address({ state: 'XX' }), 400, 780, 0);
      await expectRejected(address({ zipCode: '1234' }), 400, 350, 0);
    });

    it('a text field sent as another JSON type is 400/100/5 (an invalid value or type), not a length or character row', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [user({ firstName: 123 }), 'encryptedUserData.firstName'],
        [user({ firstName: ['Jose'] }), 'encryptedUserData.firstName'],
        [user({ lastName: 12 }), 'encryptedUserData.lastName'],
        [user({ middleName: 5 }), 'encryptedUserData.middleName'],
        [address({ city: 12345 }), 'encryptedUserData.addresses[0].city'],
        [address({ addressLine1: true }), 'encryptedUserData.addresses[0].addressLine1'],
      ];
      for (const [overrides, field] of cases) {
        const res = await enroll(EnrollmentRequestFactory.build(overrides as EnrollmentRequest));
        const property = field.split('.').at(-1) as string;
        expect({ field, status: res.status, first: res.body.responseDetails[0] }).toMatchObject({
          field,
          status: 400,
          first: { code: 100, subCode: 5, description: `${property} has an invalid value or type`, field },
        });
      }
    });

    it('lists every failed field, each with its JSON path', async () => {
      const res = await expectRejected(user({ firstName: name(36), lastName: 'L' }), 400, 400, 501);
      expect(res.body.responseDetails.map((d) => d.field)).toEqual(expect.arrayContaining(['encryptedUserData.firstName', 'encryptedUserData.lastName']));
    });
  });

  describe('business (KYB)', () => {
    const business = (data: Record<string, unknown>) => EnrollmentRequestFactory.business({ encryptedUserData: { businessData: data } });
    const rejectBusiness = async (data: Record<string, unknown>, code: number, subCode: number, description?: string) => {
      expectDetail(await enroll(business(data)), 400, code, subCode, description);
    };

    it('businessData with a consumer or omitted accountType: 400/630/0', async () => {
      const description = 'businessData is only valid when accountType is business';
      await expectRejected({ encryptedUserData: { businessData: validBusinessData() } }, 400, 630, 0, description);
      await expectRejected({ accountType: undefined, encryptedUserData: { businessData: validBusinessData() } }, 400, 630, 0, description);
    });

    it('businessData that is partial or empty with a consumer or omitted accountType: 630 first, not its fields', async () => {
      const description = 'businessData is only valid when accountType is business';
      for (const businessData of [{}, { businessName: 'Acme LLC' }, { businessName: 'A', businessZipCode: '1' }]) {
        await expectRejected({ encryptedUserData: { businessData } }, 400, 630, 0, description, 'encryptedUserData.businessData');
        await expectRejected({ accountType: undefined, encryptedUserData: { businessData } }, 400, 630, 0, description, 'encryptedUserData.businessData');
      }
    });

    it('required businessData fields: 400/200/0 naming the property', async () => {
      await rejectBusiness({ businessName: undefined }, 200, 0, 'businessName is required');
      await rejectBusiness({ businessTaxID: undefined }, 200, 0, 'businessTaxID is required');
    });

    it('format rows: zip 350, URL 740, email 750, country 600, type 600, volume 300', async () => {
      await rejectBusiness({ businessZipCode: '7870A' }, 350, 0, 'Invalid Business Zip Code');
      // The business's address zip is a business zip code too: the KYB table's one zip row.
      await rejectBusiness({ zipCode: '7870A' }, 350, 0, 'Invalid Business Zip Code');
      await rejectBusiness({ url: 'not a url' }, 740, 0, 'Invalid URL Format');
      await rejectBusiness({ url: 'https://tac\u202Eos.example/menu' }, 740, 0, 'Invalid URL Format');
      await rejectBusiness({ url: 'https://tacos.example/me\u200Bnu' }, 740, 0, 'Invalid URL Format');
      await rejectBusiness({ email: 'owner@' }, 750, 0, 'Invalid Email Format');
      await rejectBusiness({ email: 'owner\u2066@example.com' }, 750, 0, 'Invalid Email Format');
      await rejectBusiness({ businessCountryCode: 'XX' }, 600, 0, 'Invalid Business Country Code');
      await rejectBusiness({ businessType: 'guild' }, 600, 0, 'Invalid Business Type');
      await rejectBusiness({ averageMonthlyProcessingVolume: -1 }, 300, 0, 'Invalid Avg Monthly Processing Volume');
    });

    it('length rows: businessName 2..100 (507), city 504, lines 505/506, others subCode 0', async () => {
      expect((await enroll(business({ businessName: 'AB' }))).status).toBe(200);
      expect((await enroll(business({ businessName: x(100) }))).status).toBe(200);
      await rejectBusiness({ businessName: 'A' }, 400, 507);
      await rejectBusiness({ businessName: x(101) }, 400, 507);
      await rejectBusiness({ city: x(26) }, 400, 504);
      await rejectBusiness({ addressLine1: x(41) }, 400, 505);
      await rejectBusiness({ addressLine2: x(41) }, 400, 506);
      await rejectBusiness({ businessTaxID: '12345678' }, 400, 0);
      await rejectBusiness({ businessState: 'TEX' }, 400, 0);
      await rejectBusiness({ businessIndustry: '1234567' }, 400, 0);
      await rejectBusiness({ zipCode: '123' }, 400, 0);
    });

    it('character rows: businessName 507, city 504, lines 505/506', async () => {
      await rejectBusiness({ businessName: 'Tacos <3' }, 640, 507);
      await rejectBusiness({ city: 'Aus|tin' }, 640, 504);
      await rejectBusiness({ addressLine1: '200 $Commerce' }, 640, 505);
      await rejectBusiness({ addressLine2: 'Suite;4' }, 640, 506);
    });

    it('a business enrollment on a program without KYB: 400/100/5 naming accountType', async () => {
      const res = await enroll(business({}), 'lite');
      expectDetail(res, 400, 100, 5, undefined, 'accountType');
    });

    it('a business enrollment without businessData: 400/200/0', async () => {
      await expectRejected({ accountType: 'business' }, 400, 200, 0, 'businessData is required');
    });
  });

  describe('CONTRACT section 6: names and address text are normalised to Unicode NFC before validation, fingerprinting and storage', () => {
    const nfd = (text: string) => text.normalize('NFD');
    const spanish = {
      firstName: 'José',
      middleName: 'Ángel',
      lastName: 'Núñez',
      city: 'San José',
      addressLine1: '5 Calle Peña',
      addressLine2: 'Edificio Ñandú',
    };
    const written = (form: (text: string) => string) =>
      user({
        firstName: form(spanish.firstName),
        middleName: form(spanish.middleName),
        lastName: form(spanish.lastName),
        addresses: [home({ city: form(spanish.city), addressLine1: form(spanish.addressLine1), addressLine2: form(spanish.addressLine2) })],
      });

    it('a decomposed José is accepted, stored and embossed as the precomposed one; the identical retry in precomposed form replays', async () => {
      expect(nfd(spanish.firstName)).not.toBe(spanish.firstName);
      const request = EnrollmentRequestFactory.build(written(nfd));
      const first = await app.client('secure').post(ENROLL, request);
      expect({ status: first.status, first: first.body.responseDetails[0] }).toEqual({ status: 200, first: { code: 0, subCode: 0, description: 'Success' } });
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(first.body.paymentInstruments).toEqual([expect.objectContaining({ embossedName: 'JOSE NUNEZ' })]);

      const partnerKey = (await importJWK((await encryptionPartnerKeys()).privateJwk, 'ECDH-ES')) as CryptoKey;
      const sealed = (first.body.user as { encryptedUserData: string }).encryptedUserData;
      const stored = JSON.parse(new TextDecoder().decode((await compactDecrypt(sealed, partnerKey)).plaintext)) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(stored).toMatchObject({ firstName: spanish.firstName, middleName: spanish.middleName, lastName: spanish.lastName });
      expect(stored.addresses[0]).toMatchObject({ city: spanish.city, addressLine1: spanish.addressLine1, addressLine2: spanish.addressLine2 });

      const precomposed = merge(
        request,
        written((text) => text),
      ) as EnrollmentRequest;
      expect(precomposed.requestId).toBe(request.requestId);
      expect(precomposed.encryptedUserData.firstName).toBe('José');
      const retry = await app.client('secure').post(ENROLL, precomposed);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(first.body);
    });

    it('lengths count composed characters: a 35-letter firstName with one decomposed letter is 35, not 36', async () => {
      const firstName = nfd(`${name(34)}é`);
      expect(firstName).toHaveLength(36);
      await expectOk(user({ firstName }));
    });

    it('a combining mark that makes no Spanish letter is still an invalid character (640)', async () => {
      await expectRejected(user({ firstName: 'Jose\u0300' }), 400, 640, 501, undefined, 'encryptedUserData.firstName');
      await expectRejected(user({ lastName: 'Nun\u0303o\u0303' }), 400, 640, 502, undefined, 'encryptedUserData.lastName');
      await expectRejected(user({ middleName: 'X\u0301' }), 400, 640, 503);
      await expectRejected(address({ city: 'Pa\u0308rnu' }), 400, 640, 504);
    });
  });

  describe('request shape', () => {
    it('refuses server-owned and unknown properties: 400/100/2 naming the property', async () => {
      const res = await expectRejected({ status: 'normal' }, 400, 100, 2);
      expect(res.body.responseDetails[0].field).toBe('status');
      await expectRejected({ encryptedUserData: { accountCycleDay: 3 } }, 400, 100, 2, undefined, 'encryptedUserData.accountCycleDay');
    });

    it('optional fields sent as null count as absent', async () => {
      await expectOk({
        onboardingID: null,
        currency: null,
        accountType: null,
        encryptedUserData: { middleName: null, email: null, identifyingData: { ssnSuffix: null, matriculaId: null }, businessData: null },
      });
    });

    it('required fields: 400/200/0', async () => {
      await expectRejected(user({ lastName: undefined }), 400, 200, 0, 'lastName is required');
      await expectRejected({ termsAcceptanceDateTime: undefined }, 400, 200, 0, 'termsAcceptanceDateTime is required');
      await expectRejected({ encryptedUserData: undefined }, 400, 200, 0, 'encryptedUserData is required');
    });

    it('validation failures write nothing', async () => {
      const db = await app.db();
      try {
        const before = (await db.query('select count(*)::int as n from accounts')).rows[0].n as number;
        await expectRejected(address({ city: x(26) }), 400, 400, 504);
        await expectRejected({ currency: 'MXN' }, 400, 650, 430);
        const after = (await db.query('select count(*)::int as n from accounts')).rows[0].n as number;
        expect(after).toBe(before);
        const keys = (await db.query(`select count(*)::int as n from idempotency_keys where response_status is null`)).rows[0].n as number;
        expect(keys).toBe(0);
      } finally {
        await db.end();
      }
    });
  });
});
