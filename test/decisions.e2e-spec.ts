import { randomBytes } from 'node:crypto';
import type { ApiBody, ApiResponse, EnrollmentClient } from '../client/enrollment-client';
import { EnrollmentRequest, EnrollmentRequestFactory, uniqueItin, uniquePhone } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

interface Enrolled {
  body: ApiBody;
  accountId: string;
  userId: string;
}

const detail = (res: ApiResponse) => ({ status: res.status, first: res.body.responseDetails[0] });
const account = (body: ApiBody) => body.account as { accountIdentifier: string; status: string; accountCycleDay: number | null; [key: string]: unknown };

/**
 * The choices made where SERVICE.md is silent (README "Decisions", CONTRACT section 15: today's
 * answer stands and is documented). Each spec pins one row, so the table cannot drift from the code.
 */
describe('Decisions where SERVICE.md is silent (e2e)', () => {
  let app: TestApp;
  let acme: EnrollmentClient;
  let care: EnrollmentClient;

  beforeAll(async () => {
    app = await startTestApp('decisions');
    acme = app.client('acme');
    care = app.client('care');
  });

  afterAll(async () => {
    await app.close();
  });

  async function enroll(request: EnrollmentRequest, programCode = 'sandbox'): Promise<Enrolled> {
    const res = await acme.post(`/v1/programs/${programCode}/enrollments`, request);
    expect(detail(res)).toEqual({ status: 200, first: { code: 0, subCode: 0, description: 'Success' } });
    return { body: res.body, accountId: account(res.body).accountIdentifier, userId: (res.body.user as { userIdentifier: string }).userIdentifier };
  }

  async function enrollWithMatricula(): Promise<Enrolled> {
    const idNumber = `MX${randomBytes(5).toString('hex').toUpperCase()}`;
    const scan = await acme.post('/v1/kycGates/scanCapture', {
      programCode: 'sandbox',
      idType: 'matricula',
      idNumber,
      issuingCountry: 'MX',
      frontImage: randomBytes(48).toString('base64'),
    });
    expect(scan.status).toBe(200);
    return enroll(
      EnrollmentRequestFactory.build({
        onboardingID: scan.body.onboardingID,
        encryptedUserData: { identifyingData: { ssn: undefined, matriculaId: idNumber } },
      }),
    );
  }

  async function careAction(accountId: string, action: 'lock' | 'close'): Promise<ApiBody> {
    const res = await care.post(`/v1/care/accounts/${accountId}/${action}`, {});
    expect(res.status).toBe(200);
    return res.body;
  }

  async function limitKeyKinds(accountId: string): Promise<string[]> {
    const db = await app.db();
    try {
      return (
        (await db.query('select key_kind from account_limit_keys where account_id = $1 order by key_kind', [accountId])).rows as Array<{ key_kind: string }>
      ).map((r) => r.key_kind);
    } finally {
      await db.end();
    }
  }

  const enrollRefused = async (overrides: Record<string, unknown>, programCode = 'sandbox') =>
    detail(await acme.post(`/v1/programs/${programCode}/enrollments`, EnrollmentRequestFactory.build(overrides)));

  it('a user update and an ITIN are accepted on a closed account (only a locked account declines them, 5/362)', async () => {
    const consumer = await enroll(EnrollmentRequestFactory.build());
    await careAction(consumer.accountId, 'close');
    const update = await acme.put(`/v1/programs/sandbox/accounts/${consumer.accountId}/users/${consumer.userId}`, {
      encryptedUserData: { email: { emailAddress: 'closed@example.com' } },
    });
    expect(detail(update)).toEqual({ status: 200, first: { code: 0, subCode: 0, description: 'Success' } });

    const matricula = await enrollWithMatricula();
    await careAction(matricula.accountId, 'close');
    const itin = await acme.post(`/v1/accounts/${matricula.accountId}/users/${matricula.userId}/identity`, { itin: uniqueItin() });
    expect(detail(itin)).toEqual({ status: 200, first: { code: 0, subCode: 0, description: 'Success' } });
  });

  it('a business profile PUT is accepted on a locked account', async () => {
    const business = await enroll(EnrollmentRequestFactory.business());
    await careAction(business.accountId, 'lock');
    const res = await acme.put(`/v1/programs/sandbox/accounts/${business.accountId}/businessProfile`, { businessData: { businessName: 'Locked Tacos LLC' } });
    expect(detail(res)).toEqual({ status: 200, first: { code: 0, subCode: 0, description: 'Success' } });
    expect(res.body.businessData).toMatchObject({ businessName: 'Locked Tacos LLC' });
  });

  it('duplicate phone types answer 400/1020 like duplicate address types', async () => {
    const phoneNumbers = [
      { phoneType: 'mobile', number: uniquePhone() },
      { phoneType: 'mobile', number: uniquePhone() },
    ];
    expect(await enrollRefused({ encryptedUserData: { phoneNumbers } })).toMatchObject({
      status: 400,
      first: { code: 1020, subCode: 0, description: 'Duplicated type is not allowed', field: 'encryptedUserData.phoneNumbers[1].phoneType' },
    });
  });

  it.each([
    [
      'two default phones',
      {
        encryptedUserData: {
          phoneNumbers: [
            { phoneType: 'mobile', number: uniquePhone(), isDefault: true },
            { phoneType: 'home', number: uniquePhone(), isDefault: true },
          ],
        },
      },
      'sandbox',
      'encryptedUserData.phoneNumbers',
    ],
    [
      'ssnSuffix different from last4SSN',
      { encryptedUserData: { identifyingData: { ssn: undefined, ssnSuffix: '1234', last4SSN: '4321' } } },
      'lite',
      'encryptedUserData.identifyingData.last4SSN',
    ],
    ['a business enrollment on a program without KYB', { accountType: 'business' }, 'lite', 'accountType'],
    ['a termsAcceptanceDateTime that is not ISO 8601', { termsAcceptanceDateTime: '21/11/2026 10:00' }, 'sandbox', 'termsAcceptanceDateTime'],
  ])('%s answers 400/100/5', async (_case, overrides, programCode, field) => {
    expect(await enrollRefused(overrides, programCode)).toMatchObject({ status: 400, first: { code: 100, subCode: 5, field } });
  });

  it('a future date of birth answers 400/700 (not a date of birth)', async () => {
    const tomorrow = new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    expect(await enrollRefused({ encryptedUserData: { identifyingData: { dateOfBirth: tomorrow } } })).toMatchObject({
      status: 400,
      first: { code: 700, subCode: 0, field: 'encryptedUserData.identifyingData.dateOfBirth' },
    });
  });

  it('accountCycleDay stays shown on locked and closed accounts', async () => {
    const enrolled = await enroll(EnrollmentRequestFactory.build());
    const day = account(enrolled.body).accountCycleDay;
    expect(day).toEqual(expect.any(Number));
    const get = () => acme.get(`/v1/programs/sandbox/enrollments/accounts/${enrolled.accountId}`);
    await careAction(enrolled.accountId, 'lock');
    expect(account((await get()).body)).toMatchObject({ status: 'locked', accountCycleDay: day });
    await careAction(enrolled.accountId, 'close');
    expect(account((await get()).body)).toMatchObject({ status: 'closed', accountCycleDay: day });
  });

  it('a Matricula enrollment has no SSN/ITIN limit key until an ITIN is added', async () => {
    const matricula = await enrollWithMatricula();
    expect(await limitKeyKinds(matricula.accountId)).toEqual(['phone']);
    const added = await acme.post(`/v1/accounts/${matricula.accountId}/users/${matricula.userId}/identity`, { itin: uniqueItin() });
    expect(detail(added).first).toMatchObject({ code: 0, subCode: 0 });
    expect(await limitKeyKinds(matricula.accountId)).toEqual(['itin', 'phone']);
  });

  it('the OpenAPI operation descriptions state these decisions', async () => {
    const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, { description?: string }>> };
    const descriptionOf = (path: string, method: string) => document.paths[path]?.[method]?.description ?? '';
    const enrollment = descriptionOf('/v1/programs/{programCode}/enrollments', 'post');
    for (const phrase of [
      'per account type',
      "calling partner's",
      'Matricula enrollment counts under its default phone only',
      '400/1020',
      '400/100/5',
      'future answers 400/700',
      '400/660/0',
      'Kycrefer',
      'NFC',
      'a business enrollment needs its businessData',
    ]) {
      expect(enrollment).toContain(phrase);
    }
    expect(descriptionOf('/v1/programs/{programCode}/enrollments/accounts/{accountIdentifier}', 'get')).toContain('locked and closed accounts');
    expect(descriptionOf('/v1/programs/{programCode}/accounts/{accountIdentifier}/users/{userIdentifier}', 'put')).toContain('a closed account can be updated');
    expect(descriptionOf('/v1/accounts/{accountIdentifier}/users/{userIdentifier}/identity', 'post')).toContain('a closed account accepts the ITIN');
    expect(descriptionOf('/v1/programs/{programCode}/accounts/{accountIdentifier}/businessProfile', 'put')).toContain(
      'locked and closed accounts accept the update',
    );
    // Care operations are in the issuer's document, not the partner's.
    const care = (await (await fetch(`${app.baseUrl}/openapi-care.json`)).json()) as typeof document;
    const removal = care.paths['/v1/care/accounts/{accountIdentifier}/fraudBlock']?.delete?.description ?? '';
    expect(removal).toContain('whatever it was before the block');
    expect(removal).toContain('at most 3 times within 15 minutes');
  });

  it('the sandbox last name Kycrefer refers KYC on a program without kycRequired too', async () => {
    const referred = await enroll(EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer' } }), 'lite');
    expect(account(referred.body)).toMatchObject({ status: 'pending', kycPendingGate: 'manual', statusReason: 'underReview' });
    expect(referred.body.paymentInstruments).toEqual([expect.objectContaining({ status: 'inactive' })]);
  });
});
