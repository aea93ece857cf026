import type { ApiBody, ApiResponse } from '../client/enrollment-client';
import { EnrollmentRequest, EnrollmentRequestFactory, uniqueItin, uniquePhone, uniqueSsn } from './support/enrollment-factory';
import { linked, startTestApp, TestApp } from './support/test-app';
import { limitCountSql } from '../src/modules/accounts/services/account-limits.service';

const SANDBOX = '/v1/programs/sandbox/enrollments';
const OTHER = '/v1/programs/other/enrollments';

const accountIdOf = (body: ApiBody) => (body.account as { accountIdentifier: string }).accountIdentifier;
const withSsn = (ssn: string, extra: Record<string, unknown> = {}) => ({ encryptedUserData: { identifyingData: { ssn, ...extra } } });
const withPhone = (number: string) => ({ encryptedUserData: { phoneNumbers: [{ phoneType: 'mobile', number }] } });

describe('Enrollment account limits (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    // `other` overrides some limits (CONTRACT.md section 4) so the business phone rows stay short.
    app = await startTestApp('enrollment-limits', {
      programs: [
        { programCode: 'other', limits: { consumer: { ssn: [2, 5] }, business: { phone: [1, 2] } } },
        // Two partners in one program (acme and secure), two active accounts of an SSN allowed.
        { programCode: 'shared', currencies: ['USD'], kycRequired: true, kybEnabled: false, matriculaEnabled: false, limits: { consumer: { ssn: [2, 5] } } },
      ],
    });
  });

  afterAll(async () => {
    await app.close();
  });

  async function enrolled(request: EnrollmentRequest, path = SANDBOX, partner: 'acme' | 'globex' | 'secure' = 'acme'): Promise<string> {
    const res = await app.client(partner).post(path, request);
    expect({ status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ status: 200, detail: { code: 0, subCode: 0 } });
    return accountIdOf(res.body);
  }

  async function close(accountId: string): Promise<void> {
    const res = await app.client('care').post(`/v1/care/accounts/${accountId}/close`, {});
    expect({ status: res.status, status2: (res.body.account as { status: string }).status }).toEqual({ status: 200, status2: 'closed' });
  }

  function expectDecline(res: ApiResponse, subCode: number, description: string): void {
    expect(res.status).toBe(200);
    expect(res.body.responseDetails[0]).toEqual(linked({ code: 2, subCode, description }));
  }

  describe('SSN and ITIN (consumer: 1 active, 3 lifetime)', () => {
    it('active limit with the same date of birth returns the most recent active enrollment; another date of birth only the error', async () => {
      const ssn = uniqueSsn();
      const first = await enrolled(EnrollmentRequestFactory.build(withSsn(ssn, { dateOfBirth: '1985-06-15' })));
      const same = await app.client().post(SANDBOX, EnrollmentRequestFactory.build(withSsn(ssn, { dateOfBirth: '1985-06-15' })));
      expectDecline(same, 60, 'Number of Active Accounts Exceeded');
      expect(accountIdOf(same.body)).toBe(first);
      expect(same.body.user).toMatchObject({ isPrimaryAccountHolder: true });
      expect(same.body.paymentInstruments).toHaveLength(1);
      expect(same.body.account).toMatchObject({ status: 'normal' });

      const other = await app.client().post(SANDBOX, EnrollmentRequestFactory.build(withSsn(ssn, { dateOfBirth: '1985-06-16' })));
      expectDecline(other, 60, 'Number of Active Accounts Exceeded');
      expect(other.body).not.toHaveProperty('account');
      expect(other.body).not.toHaveProperty('user');
      expect(other.body).not.toHaveProperty('paymentInstruments');
    });

    it('the decline is the answer of that requestId: replayed as is', async () => {
      const ssn = uniqueSsn();
      await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)));
      const request = EnrollmentRequestFactory.build(withSsn(ssn, { dateOfBirth: '1970-01-01' }));
      const first = await app.client().post(SANDBOX, request);
      expectDecline(first, 60, 'Number of Active Accounts Exceeded');
      const again = await app.client().post(SANDBOX, request);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
    });

    it('lifetime limit counts closed activated accounts: the fourth is 2/61', async () => {
      const ssn = uniqueSsn();
      for (let i = 0; i < 3; i++) {
        const id = await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)));
        await close(id);
      }
      const fourth = await app.client().post(SANDBOX, EnrollmentRequestFactory.build(withSsn(ssn)));
      expectDecline(fourth, 61, 'Number of Activated Accounts over Lifetime exceeded');
      expect(fourth.body).not.toHaveProperty('account');
    });

    it('ITIN: active 2/60 and lifetime 2/61', async () => {
      const itin = uniqueItin();
      const first = await enrolled(EnrollmentRequestFactory.build(withSsn(itin)));
      expectDecline(
        await app.client().post(SANDBOX, EnrollmentRequestFactory.build(withSsn(itin, { dateOfBirth: '1999-09-09' }))),
        60,
        'Number of Active Accounts Exceeded',
      );
      await close(first);
      await close(await enrolled(EnrollmentRequestFactory.build(withSsn(itin))));
      await close(await enrolled(EnrollmentRequestFactory.build(withSsn(itin))));
      expectDecline(await app.client().post(SANDBOX, EnrollmentRequestFactory.build(withSsn(itin))), 61, 'Number of Activated Accounts over Lifetime exceeded');
    });

    describe('CONTRACT section 6: active means activated and normal or KYC-gated; lifetime means ever activated', () => {
      it('an enrollment held for OFAC review counts toward neither; cleared after the key filled up, it ends with 2/60 and its account closed', async () => {
        const ssn = uniqueSsn();
        const heldRequest = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold', identifyingData: { ssn } } });
        const hold = await app.client().post(SANDBOX, heldRequest);
        expect(hold.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
        const heldId = accountIdOf(hold.body);
        const other = await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)));

        const cleared = await app.client('care').post(`/v1/care/accounts/${heldId}/ofacClear`, {});
        expect(cleared.status).toBe(200);
        expect(cleared.body.account).toMatchObject({ status: 'closed', statusReason: 'limitExceeded', activatedDateTime: null });
        expect(cleared.body.paymentInstruments).toEqual([]);

        // The clearance stored the decline as the requestId's final answer: the request reads declined, and the retry replays it.
        const status = await app.client().get(`${SANDBOX}/requests/${heldRequest.requestId}`);
        expect(status.body).toMatchObject({ request: { state: 'declined' }, answer: { responseDetails: [{ code: 2, subCode: 60 }] } });
        const retry = await app.client().post(SANDBOX, heldRequest);
        expectDecline(retry, 60, 'Number of Active Accounts Exceeded');
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
        expect(accountIdOf(retry.body)).toBe(other);
        const again = await app.client().post(SANDBOX, heldRequest);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.body).toEqual(retry.body);
        expect(retry.body).toEqual(status.body.answer);
      });

      it('an enrollment short of its bill cycle counts toward neither; retried after the key filled up, it is declined 2/60, closed, and the decline replays', async () => {
        const ssn = uniqueSsn();
        const pendingRequest = EnrollmentRequestFactory.build(withSsn(ssn, { dateOfBirth: '1960-02-02' }));
        const pending = await app.client().post(SANDBOX, pendingRequest, { headers: { 'x-sandbox-fault': 'billCycle' } });
        expect(pending.body.account).toMatchObject({ status: 'pending', accountCycleDay: null });
        await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)));

        const retry = await app.client().post(SANDBOX, pendingRequest);
        expectDecline(retry, 60, 'Number of Active Accounts Exceeded');
        expect(retry.body).not.toHaveProperty('account'); // another date of birth: only the error
        const replay = await app.client().post(SANDBOX, pendingRequest);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        const db = await app.db();
        try {
          const { rows } = await db.query(`select status, status_reason, activated_at from accounts where id = $1`, [accountIdOf(pending.body)]);
          expect(rows).toEqual([{ status: 'closed', status_reason: 'limitExceeded', activated_at: null }]);
        } finally {
          await db.end();
        }
      });

      it('an enrollment interrupted after its card was issued, retried after the key filled up: closed limitExceeded with its card closed too', async () => {
        const ssn = uniqueSsn();
        const request = EnrollmentRequestFactory.build(withSsn(ssn, { dateOfBirth: '1961-03-03' }));
        const interrupted = await app.client().post(SANDBOX, request, { headers: { 'x-sandbox-fault': 'after:instrumentIssued' }, noRetry: true });
        expect(interrupted.status).toBe(503);
        await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)));
        expectDecline(await app.client().post(SANDBOX, request), 60, 'Number of Active Accounts Exceeded');
        const db = await app.db();
        try {
          const { rows } = await db.query(
            `select a.status, a.status_reason, p.status as card from accounts a join payment_instruments p on p.account_id = a.id where a.request_id = $1`,
            [request.requestId],
          );
          expect(rows).toEqual([{ status: 'closed', status_reason: 'limitExceeded', card: 'closed' }]);
        } finally {
          await db.end();
        }
      });

      it('a KYC-referred enrollment interrupted before it completed, closed by the limit on its retry, ends its review too (gate none)', async () => {
        const ssn = uniqueSsn();
        const request = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer', identifyingData: { ssn, dateOfBirth: '1962-04-04' } } });
        const interrupted = await app.client().post(SANDBOX, request, { headers: { 'x-sandbox-fault': 'after:kycDecided' }, noRetry: true });
        expect(interrupted.status).toBe(503);
        await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)));
        expectDecline(await app.client().post(SANDBOX, request), 60, 'Number of Active Accounts Exceeded');
        const db = await app.db();
        try {
          const { rows } = await db.query(`select status, status_reason, kyc_pending_gate from accounts where request_id = $1`, [request.requestId]);
          expect(rows).toEqual([{ status: 'closed', status_reason: 'limitExceeded', kyc_pending_gate: 'none' }]);
        } finally {
          await db.end();
        }
      });

      it('a KYC-referred account (pending, gate manual) is active: the next enrollment is 2/60', async () => {
        const ssn = uniqueSsn();
        const referred = await app
          .client()
          .post(SANDBOX, EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer', identifyingData: { ssn } } }));
        expect(referred.body.account).toMatchObject({ status: 'pending', kycPendingGate: 'manual' });
        expectDecline(
          await app.client().post(SANDBOX, EnrollmentRequestFactory.build(withSsn(ssn, { dateOfBirth: '1960-02-02' }))),
          60,
          'Number of Active Accounts Exceeded',
        );
      });

      it('a KYC-referred account that care closes ends its review (gate none) and is no longer active: the next enrollment passes', async () => {
        const ssn = uniqueSsn();
        const referred = await app
          .client()
          .post(SANDBOX, EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer', identifyingData: { ssn } } }));
        const closed = await app.client('care').post(`/v1/care/accounts/${accountIdOf(referred.body)}/close`, {});
        expect(closed.body.account).toMatchObject({ status: 'closed', kycPendingGate: 'none' });
        await enrolled(EnrollmentRequestFactory.build(withSsn(ssn, { dateOfBirth: '1960-02-02' })));
      });

      it('a care-locked account (gate none) is not active, yet still counts for the lifetime limit', async () => {
        const ssn = uniqueSsn();
        const first = await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)));
        const locked = await app.client('care').post(`/v1/care/accounts/${first}/lock`, {});
        expect((locked.body.account as { status: string }).status).toBe('locked');
        const second = await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)));
        await close(second);
        await close(await enrolled(EnrollmentRequestFactory.build(withSsn(ssn))));
        expectDecline(
          await app.client().post(SANDBOX, EnrollmentRequestFactory.build(withSsn(ssn))),
          61,
          'Number of Activated Accounts over Lifetime exceeded',
        );
      });
    });

    it('limits are per program and account type, and overridable per program', async () => {
      const ssn = uniqueSsn();
      await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)));
      await enrolled(EnrollmentRequestFactory.business(withSsn(ssn)));
      // `other` allows 2 active consumer accounts per SSN.
      await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)), OTHER, 'globex');
      await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)), OTHER, 'globex');
      expectDecline(await app.client('globex').post(OTHER, EnrollmentRequestFactory.build(withSsn(ssn))), 60, 'Number of Active Accounts Exceeded');
    });
  });

  describe('phone (default phone only)', () => {
    it('consumer: 2 active (2/63, same DOB returns the most recent), then 10 lifetime (2/66)', async () => {
      const phone = uniquePhone();
      await enrolled(EnrollmentRequestFactory.build(withPhone(phone)));
      const second = await enrolled(EnrollmentRequestFactory.build(withPhone(phone)));
      const third = await app.client().post(SANDBOX, EnrollmentRequestFactory.build(withPhone(phone)));
      expectDecline(third, 63, 'Number of Active Accounts Exceeded');
      expect(accountIdOf(third.body)).toBe(second);
      const mismatch = await app.client().post(
        SANDBOX,
        EnrollmentRequestFactory.build({
          ...withPhone(phone),
          encryptedUserData: { ...withPhone(phone).encryptedUserData, identifyingData: { dateOfBirth: '1977-07-07', ssn: uniqueSsn() } },
        }),
      );
      expectDecline(mismatch, 63, 'Number of Active Accounts Exceeded');
      expect(mismatch.body).not.toHaveProperty('account');

      const db = await app.db();
      try {
        const ids = (
          await db.query(
            `select k.account_id from account_limit_keys k join accounts a on a.id = k.account_id where k.key_kind = 'phone' and a.status <> 'closed' and k.key_bidx = (select key_bidx from account_limit_keys where account_id = $1 and key_kind = 'phone')`,
            [second],
          )
        ).rows as Array<{ account_id: string }>;
        for (const row of ids) await close(row.account_id);
      } finally {
        await db.end();
      }
      for (let lifetime = 2; lifetime < 10; lifetime += 2) {
        const a = await enrolled(EnrollmentRequestFactory.build(withPhone(phone)));
        const b = await enrolled(EnrollmentRequestFactory.build(withPhone(phone)));
        await close(a);
        await close(b);
      }
      expectDecline(
        await app.client().post(SANDBOX, EnrollmentRequestFactory.build(withPhone(phone))),
        66,
        'Number of Activated Accounts over Lifetime exceeded',
      );
    });

    it('only the default phone counts', async () => {
      const shared = uniquePhone();
      await enrolled(EnrollmentRequestFactory.build(withPhone(shared)));
      await enrolled(EnrollmentRequestFactory.build(withPhone(shared)));
      const secondary = {
        encryptedUserData: {
          phoneNumbers: [
            { phoneType: 'home', number: uniquePhone(), isDefault: true },
            { phoneType: 'mobile', number: shared },
          ],
        },
      };
      await enrolled(EnrollmentRequestFactory.build(secondary));
    });

    it('business (other: 1 active, 2 lifetime): business wording for 63 and 66', async () => {
      const phone = uniquePhone();
      const first = await enrolled(EnrollmentRequestFactory.business(withPhone(phone)), OTHER, 'globex');
      const again = await app.client('globex').post(OTHER, EnrollmentRequestFactory.business(withPhone(phone)));
      expectDecline(again, 63, 'Maximum number of active accounts with the same phone number');
      expect(accountIdOf(again.body)).toBe(first);
      await close(first);
      await close(await enrolled(EnrollmentRequestFactory.business(withPhone(phone)), OTHER, 'globex'));
      expectDecline(
        await app.client('globex').post(OTHER, EnrollmentRequestFactory.business(withPhone(phone))),
        66,
        'Maximum number of accounts over a lifetime with the same phone number',
      );
    });
    it('a default phone moved off an activated account still counts it toward the lifetime limit (CONTRACT section 6: ever activated)', async () => {
      // other, business: 1 active and 2 lifetime accounts per phone.
      const [phone, other] = [uniquePhone(), uniquePhone()];
      const first = await app.client('globex').post(OTHER, EnrollmentRequestFactory.business(withPhone(phone)));
      expect(first.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
      const accountId = accountIdOf(first.body);
      const userPath = `/v1/programs/other/accounts/${accountId}/users/${(first.body.user as { userIdentifier: string }).userIdentifier}`;
      const movePhone = async (number: string) => {
        const res = await app.client('globex').put(userPath, { encryptedUserData: { phoneNumber: { phoneType: 'mobile', number } } });
        expect({ status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ status: 200, detail: { code: 0, subCode: 0 } });
      };
      await movePhone(other);
      // The active limit counts the phone an account has now: the number is free again.
      await close(await enrolled(EnrollmentRequestFactory.business(withPhone(phone)), OTHER, 'globex'));
      // The lifetime limit counts every account ever activated with it: the one that moved away and the closed one.
      const third = await app.client('globex').post(OTHER, EnrollmentRequestFactory.business(withPhone(phone)));
      expectDecline(third, 66, 'Maximum number of accounts over a lifetime with the same phone number');
      // Moving back, the account counts under the number as active again, and is not counted twice.
      await movePhone(phone);
      expectDecline(
        await app.client('globex').post(OTHER, EnrollmentRequestFactory.business(withPhone(phone))),
        63,
        'Maximum number of active accounts with the same phone number',
      );
      await close(accountId);
      expectDecline(
        await app.client('globex').post(OTHER, EnrollmentRequestFactory.business(withPhone(phone))),
        66,
        'Maximum number of accounts over a lifetime with the same phone number',
      );
      // A closed account moved off the number does not free a lifetime slot either (the probe's loop).
      await movePhone(uniquePhone());
      expectDecline(
        await app.client('globex').post(OTHER, EnrollmentRequestFactory.business(withPhone(phone))),
        66,
        'Maximum number of accounts over a lifetime with the same phone number',
      );
    });
  });

  describe('SERVICE.md defaults, on the sandbox program (no override)', () => {
    const LONG = 240_000;
    const userPath = (body: ApiBody) => `/v1/programs/sandbox/accounts/${accountIdOf(body)}/users/${(body.user as { userIdentifier: string }).userIdentifier}`;

    /** Enrolls `count` accounts one after the other (they share a key, so they would only queue on its lock). */
    async function enrollEach(count: number, build: () => EnrollmentRequest): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push(await enrolled(build()));
      return ids;
    }

    async function closeAll(ids: string[]): Promise<void> {
      for (const id of ids) await close(id);
    }

    async function enrolledBody(request: EnrollmentRequest): Promise<ApiBody> {
      const res = await app.client().post(SANDBOX, request);
      expect({ status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ status: 200, detail: { code: 0, subCode: 0 } });
      return res.body;
    }

    it.each([
      ['SSN', uniqueSsn],
      ['ITIN', uniqueItin],
    ])(
      'accounts per program, small business: same %s 10 active (2/60, most recent returned on a DOB match), 20 lifetime (2/61)',
      async (_kind, unique) => {
        const id = unique();
        const business = () => EnrollmentRequestFactory.business(withSsn(id));
        const first = await enrollEach(10, business);
        const eleventh = await app.client().post(SANDBOX, business());
        expectDecline(eleventh, 60, 'Number of Active Accounts Exceeded');
        expect(accountIdOf(eleventh.body)).toBe(first[9]);
        // Business limits are counted apart from consumer ones: a consumer account with the same number is still allowed.
        await enrolled(EnrollmentRequestFactory.build(withSsn(id)));

        await closeAll(first);
        const second = await enrollEach(10, business);
        await closeAll(second);
        const twentyFirst = await app.client().post(SANDBOX, business());
        expectDecline(twentyFirst, 61, 'Number of Activated Accounts over Lifetime exceeded');
        expect(twentyFirst.body).not.toHaveProperty('account');
      },
      LONG,
    );

    it(
      'accounts per program, small business: same phone 10 active (2/63) and 20 lifetime (2/66), on enrollment and on user update, with the business wording',
      async () => {
        const phone = uniquePhone();
        const business = () => EnrollmentRequestFactory.business(withPhone(phone));
        const other = await enrolledBody(EnrollmentRequestFactory.business(withPhone(uniquePhone())));
        const update = () => app.client().put(userPath(other), { encryptedUserData: { phoneNumber: { phoneType: 'mobile', number: phone } } });

        const first = await enrollEach(10, business);
        const eleventh = await app.client().post(SANDBOX, business());
        expectDecline(eleventh, 63, 'Maximum number of active accounts with the same phone number');
        expect(accountIdOf(eleventh.body)).toBe(first[9]);
        expectDecline(await update(), 63, 'Maximum number of active accounts with the same phone number');

        await closeAll(first);
        const second = await enrollEach(10, business);
        await closeAll(second);
        const twentyFirst = await app.client().post(SANDBOX, business());
        expectDecline(twentyFirst, 66, 'Maximum number of accounts over a lifetime with the same phone number');
        expect(twentyFirst.body).not.toHaveProperty('account');
        const updated = await update();
        expectDecline(updated, 66, 'Maximum number of accounts over a lifetime with the same phone number');
        expect(updated.body).not.toHaveProperty('user');
      },
      LONG,
    );

    it(
      'accounts per program, consumer: same phone 10 lifetime — the user update is declined with 2/66 like the enrollment',
      async () => {
        const phone = uniquePhone();
        const other = await enrolledBody(EnrollmentRequestFactory.build(withPhone(uniquePhone())));
        for (let i = 0; i < 5; i++) await closeAll(await enrollEach(2, () => EnrollmentRequestFactory.build(withPhone(phone))));
        expectDecline(
          await app.client().post(SANDBOX, EnrollmentRequestFactory.build(withPhone(phone))),
          66,
          'Number of Activated Accounts over Lifetime exceeded',
        );
        const updated = await app.client().put(userPath(other), { encryptedUserData: { phoneNumber: { phoneType: 'mobile', number: phone } } });
        expectDecline(updated, 66, 'Number of Activated Accounts over Lifetime exceeded');
        expect(updated.body).not.toHaveProperty('user');
        // Nothing stored: the account still counts under its own phone, which a new default phone can still take.
        const own = await app.client().put(userPath(other), { encryptedUserData: { phoneNumber: { phoneType: 'mobile', number: uniquePhone() } } });
        expect(own.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
      },
      LONG,
    );
  });

  it("the DOB-match answer never shows another partner's account", async () => {
    const ssn = uniqueSsn();
    await enrolled(EnrollmentRequestFactory.build(withSsn(ssn)), SANDBOX, 'globex');
    const res = await app.client('acme').post(SANDBOX, EnrollmentRequestFactory.build(withSsn(ssn)));
    expectDecline(res, 60, 'Number of Active Accounts Exceeded');
    expect(res.body).not.toHaveProperty('account');
  });

  it("the DOB-match answer is the caller's own most recent active enrollment, whoever enrolled the key since", async () => {
    // In a program two partners share: acme's enrollment, then secure's (more recent), both active.
    const SHARED = '/v1/programs/shared/enrollments';
    const ssn = uniqueSsn();
    const person = withSsn(ssn, { dateOfBirth: '1979-03-04' });
    const acmes = await enrolled(EnrollmentRequestFactory.build(person), SHARED, 'acme');
    const secures = await enrolled(EnrollmentRequestFactory.build(person), SHARED, 'secure');
    // Each partner's decline carries its own enrollment: nothing tells acme that secure enrolled the
    // person since (the decline alone did), and secure's account is never shown to acme.
    const acme = await app.client('acme').post(SHARED, EnrollmentRequestFactory.build(person));
    expectDecline(acme, 60, 'Number of Active Accounts Exceeded');
    expect(acme.body.account).toMatchObject({ accountIdentifier: acmes });
    const secure = await app.client('secure').post(SHARED, EnrollmentRequestFactory.build(person));
    expectDecline(secure, 60, 'Number of Active Accounts Exceeded');
    expect(secure.body.account).toMatchObject({ accountIdentifier: secures });
    // Another date of birth than the caller's own enrollment: the decline alone.
    const other = await app.client('acme').post(SHARED, EnrollmentRequestFactory.build(withSsn(ssn, { dateOfBirth: '1979-03-05' })));
    expectDecline(other, 60, 'Number of Active Accounts Exceeded');
    expect(other.body).not.toHaveProperty('account');
  });

  it('50 concurrent enrollments with the same SSN and different requestIds create exactly one account', async () => {
    const ssn = uniqueSsn();
    const client = app.client();
    await client.accessToken();
    const results = await Promise.all(Array.from({ length: 50 }, () => client.post(SANDBOX, EnrollmentRequestFactory.build(withSsn(ssn)))));
    const outcomes = results.map((res) => `${res.status}/${res.body.responseDetails[0]?.code}/${res.body.responseDetails[0]?.subCode}`);
    expect(outcomes.filter((o) => o === '200/0/0')).toHaveLength(1);
    expect(outcomes.filter((o) => o !== '200/0/0' && o !== '200/2/60' && o !== '503/503/1')).toEqual([]);
    const winner = accountIdOf(results.find((res) => res.body.responseDetails[0]?.code === 0)!.body);
    for (const res of results.filter((r) => r.body.responseDetails[0]?.subCode === 60)) expect(accountIdOf(res.body)).toBe(winner);
    const db = await app.db();
    try {
      const rows = (
        await db.query(
          `select count(*)::int as n from account_limit_keys where key_kind = 'ssn' and key_bidx = (select key_bidx from account_limit_keys where account_id = $1 and key_kind = 'ssn')`,
          [winner],
        )
      ).rows;
      expect(rows[0].n).toBe(1);
    } finally {
      await db.end();
    }
  });

  it("the limit count keeps PostgreSQL's generic plan: it is not planned again on every enrollment", async () => {
    // Enough rows that the planner weighs real statistics, then the service's own statement text,
    // as a named prepared statement like the service runs it, executed as an enrollment would.
    for (let i = 0; i < 3; i += 1) await enrolled(EnrollmentRequestFactory.build());
    const db = await app.db();
    try {
      await db.query('analyze account_limit_keys; analyze accounts');
      const text = limitCountSql(2);
      for (let i = 0; i < 10; i += 1) {
        const res = await db.query({
          name: 'limit_count_plan_check',
          text,
          values: ['sandbox', 'consumer', '00000000-0000-0000-0000-000000000000', 'acme', 'ssn', `bidx-${i}`, 'phone', `bidx-phone-${i}`],
        });
        expect(res.rows.map((row: { active: number }) => row.active)).toEqual([0, 0]);
      }
      const { rows } = await db.query(`select generic_plans::int, custom_plans::int from pg_prepared_statements where name = 'limit_count_plan_check'`);
      // PostgreSQL plans the first five executions custom, then keeps the generic plan when it costs
      // no more. The unnest form this replaced planned all ten custom.
      expect(rows[0]).toEqual({ generic_plans: 5, custom_plans: 5 });
    } finally {
      await db.end();
    }
  });
});
