import type { ApiBody } from '../client/enrollment-client';
import { EnrollmentRequestFactory, uniqueItin } from './support/enrollment-factory';
import { startTestApp, TestApp, linked } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

interface AccountBody {
  accountIdentifier: string;
  status: string;
  statusReason: string | null;
  kycPendingGate: string;
  accountCycleDay: number | null;
  activatedDateTime: string | null;
  [key: string]: unknown;
}
type Card = { paymentIdentifier: string; status: string; embossedName: string; embossedBusinessName?: string };
const accountOf = (body: ApiBody) => body.account as AccountBody;
const cardsOf = (body: ApiBody) => body.paymentInstruments as Card[];
const cycleDayToday = () => Math.min(new Date().getUTCDate(), 28);

describe('Enrollment (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('enrollment');
  });

  afterAll(async () => {
    await app.close();
  });

  async function count(sql: string, params: unknown[] = []): Promise<number> {
    const db = await app.db();
    try {
      return (await db.query(sql, params)).rows[0].n as number;
    } finally {
      await db.end();
    }
  }

  it('enrolls a consumer: account normal with a cycle day, primary purse, active card, no encrypted data for a plain partner', async () => {
    const request = EnrollmentRequestFactory.build();
    const res = await app.client().post(ENROLL, request);
    expect(res.status).toBe(200);
    expect(res.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    expect(res.body.requestId).toBe(request.requestId);
    expect(res.headers.get('x-request-id')).toBe(request.requestId);
    const account = accountOf(res.body);
    expect(account).toMatchObject({
      programCode: 'sandbox',
      accountType: 'consumer',
      status: 'normal',
      statusReason: null,
      kycPendingGate: 'none',
      currency: 'USD',
    });
    expect(account.accountCycleDay).toBe(cycleDayToday());
    expect(account.activatedDateTime).toMatch(/Z$/);
    expect(account.createdDateTime).toMatch(/Z$/);
    expect(account.purses).toEqual([expect.objectContaining({ purseType: 'primary', currency: 'USD', availableBalance: '0.00', ledgerBalance: '0.00' })]);
    expect(account).not.toHaveProperty('encryptedAccountData');
    expect(res.body.user).toMatchObject({ isPrimaryAccountHolder: true, status: 'active' });
    expect(res.body.user).not.toHaveProperty('encryptedUserData');
    expect(cardsOf(res.body)).toEqual([
      expect.objectContaining({
        type: 'virtual',
        status: 'active',
        embossedName: 'JOSE NUNEZ',
        last4: expect.stringMatching(/^\d{4}$/),
        expirationDate: expect.stringMatching(/^\d{4}-\d{2}$/),
      }),
    ]);
    expect(cardsOf(res.body)[0]).not.toHaveProperty('embossedBusinessName');

    const got = await app.client().get(`${ENROLL}/accounts/${account.accountIdentifier}`);
    expect(got.status).toBe(200);
    expect(got.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    expect(got.body.account).toEqual(account);
    expect(got.body.user).toEqual(res.body.user);
    expect(got.body.paymentInstruments).toEqual(res.body.paymentInstruments);
  });

  it('answers 404/10/0 for a malformed, unknown, other-partner or other-program account', async () => {
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const res = await app.client().get(`${ENROLL}/accounts/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 10, subCode: 0, description: 'Account Not Found' });
    }
    const created = await app.client('globex').post(ENROLL, EnrollmentRequestFactory.build());
    expect(created.status).toBe(200);
    const id = accountOf(created.body).accountIdentifier;
    const foreign = await app.client('acme').get(`${ENROLL}/accounts/${id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.responseDetails[0]).toMatchObject({ code: 10, subCode: 0 });
    const own = await app.client('acme').post(ENROLL, EnrollmentRequestFactory.build());
    const otherProgram = await app.client('acme').get(`/v1/programs/lite/enrollments/accounts/${accountOf(own.body).accountIdentifier}`);
    expect(otherProgram.status).toBe(404);
    expect(otherProgram.body.responseDetails[0]).toMatchObject({ code: 10, subCode: 0 });
  });

  it('needs scope enrollments and a program of the partner', async () => {
    const scoped = await app.client('acme', { scope: 'users' }).post(ENROLL, EnrollmentRequestFactory.build());
    expect(scoped.status).toBe(403);
    expect(scoped.body.responseDetails[0]).toMatchObject({ code: 403, subCode: 1 });
    const other = await app.client('acme').post('/v1/programs/other/enrollments', EnrollmentRequestFactory.build());
    expect(other.status).toBe(403);
    expect(other.body.responseDetails[0]).toMatchObject({ code: 403, subCode: 2 });
  });

  it('enrolls a small business: embossed business name on the card, profile written', async () => {
    const request = EnrollmentRequestFactory.business({ encryptedUserData: { businessData: { businessName: 'Peña Ñoño Café' } } });
    const res = await app.client().post(ENROLL, request);
    expect(res.status).toBe(200);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(accountOf(res.body)).toMatchObject({ accountType: 'business', status: 'normal' });
    expect(cardsOf(res.body)).toEqual([expect.objectContaining({ status: 'active', embossedName: 'JOSE NUNEZ', embossedBusinessName: 'PENA NONO CAFE' })]);
    const profile = await app.client().get(`/v1/programs/sandbox/accounts/${accountOf(res.body).accountIdentifier}/businessProfile`);
    expect(profile.status).toBe(200);
    expect(profile.body.businessData).toMatchObject({ businessName: 'Peña Ñoño Café' });
    const got = await app.client().get(`${ENROLL}/accounts/${accountOf(res.body).accountIdentifier}`);
    expect({ account: got.body.account, user: got.body.user, paymentInstruments: got.body.paymentInstruments }).toEqual({
      account: res.body.account,
      user: res.body.user,
      paymentInstruments: res.body.paymentInstruments,
    });
    const users = await app.client().get(`/v1/programs/sandbox/accounts/${accountOf(res.body).accountIdentifier}/users`);
    expect(users.body.users).toEqual([res.body.user]);
  });

  it('KYC refer: pending, gate manual, underReview, cycle day assigned, inactive card', async () => {
    const res = await app.client().post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer' } }));
    expect(res.status).toBe(200);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(accountOf(res.body)).toMatchObject({ status: 'pending', kycPendingGate: 'manual', statusReason: 'underReview', accountCycleDay: cycleDayToday() });
    expect(accountOf(res.body).activatedDateTime).not.toBeNull();
    expect(cardsOf(res.body)).toEqual([expect.objectContaining({ status: 'inactive', embossedName: 'JOSE KYCREFER' })]);
  });

  it('OFAC hold: 200 with 5/370 first, pending ofacReview, no cycle day, no card; a retry stays held; clearance completes it as requested', async () => {
    const request = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } });
    const res = await app.client().post(ENROLL, request);
    expect(res.status).toBe(200);
    expect(res.body.responseDetails[0]).toEqual(linked({ code: 5, subCode: 370, description: 'Enrollment is held for OFAC review' }));
    const held = accountOf(res.body);
    expect(held).toMatchObject({ status: 'pending', statusReason: 'ofacReview', accountCycleDay: null, activatedDateTime: null });
    expect(res.body.user).toMatchObject({ isPrimaryAccountHolder: true });
    expect(res.body.paymentInstruments).toEqual([]);

    const retry = await app.client().post(ENROLL, request);
    expect(retry.status).toBe(200);
    expect(retry.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    expect(accountOf(retry.body).accountIdentifier).toBe(held.accountIdentifier);
    expect(await count('select count(*)::int as n from accounts where request_id = $1', [request.requestId])).toBe(1);

    const got = await app.client().get(`${ENROLL}/accounts/${held.accountIdentifier}`);
    expect(got.status).toBe(200);
    expect(accountOf(got.body)).toMatchObject({ status: 'pending', statusReason: 'ofacReview', accountCycleDay: null });

    const cleared = await app.client('care').post(`/v1/care/accounts/${held.accountIdentifier}/ofacClear`, {});
    expect(cleared.status).toBe(200);
    const after = await app.client().get(`${ENROLL}/accounts/${held.accountIdentifier}`);
    expect(accountOf(after.body)).toMatchObject({ status: 'normal', statusReason: null, kycPendingGate: 'none', accountCycleDay: cycleDayToday() });
    expect(cardsOf(after.body)).toEqual([expect.objectContaining({ status: 'active', embossedName: 'JOSE OFACHOLD' })]);

    // The identical request now answers the completed enrollment.
    const final = await app.client().post(ENROLL, request);
    expect(final.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(accountOf(final.body)).toMatchObject({ accountIdentifier: held.accountIdentifier, status: 'normal' });
    expect(await count('select count(*)::int as n from payment_instruments where account_id = $1', [held.accountIdentifier])).toBe(1);
  });

  it('SERVICE.md KYC refer, in full: pending, kycPendingGate manual, statusReason underReview, activated with a cycle day and an inactive card; care clears the gate to normal with the same card active', async () => {
    const res = await app.client().post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer' } }));
    expect(res.status).toBe(200);
    expect(res.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    const referred = accountOf(res.body);
    expect(referred).toMatchObject({ status: 'pending', kycPendingGate: 'manual', statusReason: 'underReview', accountCycleDay: cycleDayToday() });
    expect(referred.activatedDateTime).toMatch(/Z$/);
    expect(res.body.user).toMatchObject({ isPrimaryAccountHolder: true });
    expect(cardsOf(res.body)).toEqual([expect.objectContaining({ status: 'inactive', embossedName: 'JOSE KYCREFER' })]);
    const card = cardsOf(res.body)[0].paymentIdentifier;

    const got = await app.client().get(`${ENROLL}/accounts/${referred.accountIdentifier}`);
    expect(got.body.account).toEqual(referred);
    expect(got.body.paymentInstruments).toEqual(res.body.paymentInstruments);

    const cleared = await app.client('care').post(`/v1/care/accounts/${referred.accountIdentifier}/kycGate/clear`, {});
    expect(cleared.status).toBe(200);
    expect(cleared.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    const after = await app.client().get(`${ENROLL}/accounts/${referred.accountIdentifier}`);
    expect(accountOf(after.body)).toMatchObject({
      status: 'normal',
      kycPendingGate: 'none',
      statusReason: null,
      accountCycleDay: referred.accountCycleDay,
      activatedDateTime: referred.activatedDateTime,
    });
    expect(cardsOf(after.body)).toEqual([expect.objectContaining({ paymentIdentifier: card, status: 'active' })]);
    const again = await app.client('care').post(`/v1/care/accounts/${referred.accountIdentifier}/kycGate/clear`, {});
    expect(again.status).toBe(409);
    expect(again.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 390 });
  });

  it('CONTRACT section 6 OFAC hold answer: HTTP 200, 5/370 first, account pending/ofacReview with no cycle day, user, no card; the identical retry while still held gets the same answer and creates nothing', async () => {
    const request = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } });
    const res = await app.client().post(ENROLL, request);
    expect(res.status).toBe(200);
    expect(res.body.requestId).toBe(request.requestId);
    expect(res.body.responseDetails).toEqual([linked({ code: 5, subCode: 370, description: 'Enrollment is held for OFAC review' })]);
    const held = accountOf(res.body);
    expect(held).toMatchObject({
      programCode: 'sandbox',
      accountType: 'consumer',
      status: 'pending',
      statusReason: 'ofacReview',
      kycPendingGate: 'none',
      accountCycleDay: null,
      activatedDateTime: null,
      currency: 'USD',
    });
    expect(held.createdDateTime).toMatch(/Z$/);
    expect(held.purses).toEqual([expect.objectContaining({ purseType: 'primary', currency: 'USD' })]);
    expect(res.body.user).toMatchObject({ userIdentifier: expect.any(String), isPrimaryAccountHolder: true });
    expect(res.body.paymentInstruments).toEqual([]);

    for (let attempt = 0; attempt < 2; attempt++) {
      const retry = await app.client().post(ENROLL, request);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(res.body);
    }
    expect(await count('select count(*)::int as n from accounts where request_id = $1', [request.requestId])).toBe(1);
    expect(await count('select count(*)::int as n from users where account_id = $1', [held.accountIdentifier])).toBe(1);
    expect(await count('select count(*)::int as n from payment_instruments where account_id = $1', [held.accountIdentifier])).toBe(0);
  });

  it('bill-cycle failure leaves the account pending without card; the identical retry completes it with no duplicates', async () => {
    const request = EnrollmentRequestFactory.build();
    const failed = await app.client().post(ENROLL, request, { headers: { 'x-sandbox-fault': 'billCycle' } });
    expect(failed.status).toBe(200);
    const pending = accountOf(failed.body);
    expect(pending).toMatchObject({ status: 'pending', accountCycleDay: null, activatedDateTime: null });
    expect(failed.body.paymentInstruments).toEqual([]);
    const got = await app.client().get(`${ENROLL}/accounts/${pending.accountIdentifier}`);
    expect(accountOf(got.body)).toMatchObject({ status: 'pending', accountCycleDay: null });
    expect(got.body.paymentInstruments).toEqual([]);

    const retry = await app.client().post(ENROLL, request);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(accountOf(retry.body)).toMatchObject({ accountIdentifier: pending.accountIdentifier, status: 'normal', accountCycleDay: cycleDayToday() });
    expect(cardsOf(retry.body)).toHaveLength(1);
    expect(await count('select count(*)::int as n from accounts where request_id = $1', [request.requestId])).toBe(1);
    expect(await count('select count(*)::int as n from users where account_id = $1', [pending.accountIdentifier])).toBe(1);
    expect(await count('select count(*)::int as n from purses where account_id = $1', [pending.accountIdentifier])).toBe(1);

    const replay = await app.client().post(ENROLL, request);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(retry.body);
  });

  it('records accountUpdated and cardUpdated in the outbox, without personal data', async () => {
    const res = await app.client().post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer' } }));
    const id = accountOf(res.body).accountIdentifier;
    const db = await app.db();
    try {
      const events = (await db.query('select event_type, payload from outbox_events where account_id = $1 order by occurred_at', [id])).rows as Array<{
        event_type: string;
        payload: unknown;
      }>;
      expect(events.map((e) => e.event_type)).toEqual(expect.arrayContaining(['accountUpdated', 'cardUpdated']));
      const text = JSON.stringify(events);
      expect(text).toContain('underReview');
      expect(text).not.toMatch(/José|Kycrefer|KYCREFER|1990-04-01|Main St/);
    } finally {
      await db.end();
    }
  });

  it('the same requestId with the same payload replays the stored answer', async () => {
    const request = EnrollmentRequestFactory.build();
    const first = await app.client().post(ENROLL, request);
    const second = await app.client().post(ENROLL, request);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('an ssn starting with 9 is stored and counted as an ITIN', async () => {
    const itin = uniqueItin();
    const res = await app.client().post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn: itin } } }));
    expect(res.status).toBe(200);
    const id = accountOf(res.body).accountIdentifier;
    expect(await count(`select count(*)::int as n from accounts where id = $1 and identity_kind = 'itin'`, [id])).toBe(1);
    expect(await count(`select count(*)::int as n from users where account_id = $1 and itin_enc is not null and ssn_enc is null`, [id])).toBe(1);
    expect(await count(`select count(*)::int as n from account_limit_keys where account_id = $1 and key_kind = 'itin'`, [id])).toBe(1);
  });

  it('a program without KYC enrolls with ssnSuffix and no phone, in another currency', async () => {
    const request = EnrollmentRequestFactory.build({
      currency: 'MXN',
      encryptedUserData: { identifyingData: { ssn: undefined, last4SSN: '4321' }, phoneNumbers: undefined },
    });
    const res = await app.client().post('/v1/programs/lite/enrollments', request);
    expect(res.status).toBe(200);
    expect(accountOf(res.body)).toMatchObject({ programCode: 'lite', currency: 'MXN', status: 'normal' });
    expect(await count(`select count(*)::int as n from accounts where id = $1 and identity_kind = 'ssnSuffix'`, [accountOf(res.body).accountIdentifier])).toBe(
      1,
    );
  });

  it('stores the address defaults and the default phone as resolved', async () => {
    const request = EnrollmentRequestFactory.build({
      encryptedUserData: {
        addresses: [
          { type: 'mailing', addressLine1: 'PO Box 12', city: 'Austin', state: 'TX', zipCode: '78701' },
          { type: 'home', addressLine1: '100 Main St', city: 'Austin', state: 'TX', zipCode: '78701-1234' },
        ],
        phoneNumbers: [
          { phoneType: 'home', number: '5125550101' },
          { phoneType: 'mobile', number: '5125550102' },
        ],
      },
    });
    const res = await app.client().post('/v1/programs/lite/enrollments', request);
    expect(res.status).toBe(200);
    const db = await app.db();
    try {
      const user = (await db.query('select id from users where account_id = $1', [accountOf(res.body).accountIdentifier])).rows[0] as { id: string };
      const addresses = (await db.query('select type, is_default from user_addresses where user_id = $1 order by type', [user.id])).rows;
      expect(addresses).toEqual([
        { type: 'home', is_default: true },
        { type: 'mailing', is_default: false },
      ]);
      const phones = (await db.query('select phone_type, is_default from user_phones where user_id = $1 order by phone_type', [user.id])).rows;
      expect(phones).toEqual([
        { phone_type: 'home', is_default: true },
        { phone_type: 'mobile', is_default: false },
      ]);
    } finally {
      await db.end();
    }
  });
});
