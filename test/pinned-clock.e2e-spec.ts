import { Clock } from '../src/infrastructure/time/clock';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';
const HOUR = 60 * 60 * 1000;

interface EnrollmentBody {
  responseDetails: Array<{ code: number; subCode: number }>;
  account: { accountIdentifier: string; status: string; accountCycleDay: number | null };
  paymentInstruments: Array<{ status: string }>;
}

/**
 * Time-dependent rules, with the service's Clock pinned (moved by `offsetMs`):
 * - SERVICE.md: "Same requestId with the same payload yields the same result each time… An
 *   incomplete operation is completed as originally intended when the identical call is repeated."
 *   CONTRACT section 6: the 720-hour terms window and the 24-hour onboardingID window are judged at
 *   the first attempt; an identical retry days later replays or completes.
 * - SERVICE.md: accountCycleDay is 1 to 28 (the UTC day of completion, capped at 28).
 */
describe('Time-dependent rules under a pinned Clock (e2e)', () => {
  let app: TestApp;
  let clock: Clock;
  let offsetMs = 0;

  beforeAll(async () => {
    app = await startTestApp('pinned_clock');
    clock = app.app.get(Clock, { strict: false });
    const realNow = clock.now.bind(clock);
    jest.spyOn(clock, 'now').mockImplementation(() => new Date(realNow().getTime() + offsetMs));
  });

  afterEach(() => {
    offsetMs = 0;
  });

  afterAll(async () => {
    await app.close();
  });

  async function accountsOf(requestId: string): Promise<number> {
    const db = await app.db();
    try {
      return (await db.query(`select count(*)::int as n from accounts where request_id = $1`, [requestId])).rows[0].n as number;
    } finally {
      await db.end();
    }
  }

  it('a completed enrollment retried after the 720-hour terms window replays its answer (not 400/620)', async () => {
    const client = app.client();
    const request = EnrollmentRequestFactory.build();
    const first = await client.post<EnrollmentBody>(ENROLL, request);
    expect(first.status).toBe(200);
    offsetMs = 721 * HOUR;
    const retry = await client.post<EnrollmentBody>(ENROLL, request);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  it('an enrollment left pending by a bill-cycle failure completes on the identical retry after the terms window, exactly once', async () => {
    const client = app.client();
    const request = EnrollmentRequestFactory.build();
    const pending = await client.post<EnrollmentBody>(ENROLL, request, { headers: { 'x-sandbox-fault': 'billCycle' } });
    expect(pending.status).toBe(200);
    expect(pending.body.account).toMatchObject({ status: 'pending', accountCycleDay: null });
    expect(pending.body.paymentInstruments).toEqual([]);

    offsetMs = 721 * HOUR;
    const completed = await client.post<EnrollmentBody>(ENROLL, request);
    expect(completed.status).toBe(200);
    expect(completed.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(completed.body.account.accountIdentifier).toBe(pending.body.account.accountIdentifier);
    expect(completed.body.account.status).toBe('normal');
    expect(completed.body.account.accountCycleDay).toBe(Math.min(new Date(Date.now() + offsetMs).getUTCDate(), 28));
    expect(completed.body.paymentInstruments).toHaveLength(1);

    const again = await client.post<EnrollmentBody>(ENROLL, request);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(completed.body);
    expect(await accountsOf(request.requestId)).toBe(1);
  });

  it('a first attempt is still judged now: a new requestId with the same old terms answers 400/620', async () => {
    const request = EnrollmentRequestFactory.build();
    offsetMs = 721 * HOUR;
    const late = await app.client().post<EnrollmentBody>(ENROLL, request);
    expect(late.status).toBe(400);
    expect(late.body.responseDetails[0]).toMatchObject({ code: 620, subCode: 0 });
    expect(await accountsOf(request.requestId)).toBe(0);
  });

  it.each([
    ['2027-01-29T08:00:00Z', 28],
    ['2027-01-30T23:59:59Z', 28],
    ['2027-03-31T00:00:00Z', 28],
    ['2027-02-28T12:00:00Z', 28],
    ['2027-03-01T00:00:01Z', 1],
    ['2027-03-27T12:00:00Z', 27],
  ])('SERVICE.md accountCycleDay 1 to 28: completed at %s UTC, the cycle day is %i', async (at, day) => {
    offsetMs = Date.parse(at) - Date.now();
    const request = EnrollmentRequestFactory.build({ termsAcceptanceDateTime: at });
    const res = await app.client().post<EnrollmentBody>(ENROLL, request);
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ status: 'normal', accountCycleDay: day });
  });

  it('a Matricula enrollment left pending completes on the identical retry after the 24-hour onboardingID window', async () => {
    const client = app.client();
    const scan = await client.post<{ onboardingID: string }>('/v1/kycGates/scanCapture', {
      programCode: 'sandbox',
      idType: 'matricula',
      idNumber: 'MX12345678',
      issuingCountry: 'MX',
      frontImage: Buffer.from('front').toString('base64'),
    });
    expect(scan.status).toBe(200);
    const request = EnrollmentRequestFactory.build({ onboardingID: scan.body.onboardingID, encryptedUserData: { identifyingData: { ssn: undefined } } });
    const pending = await client.post<EnrollmentBody>(ENROLL, request, { headers: { 'x-sandbox-fault': 'billCycle' } });
    expect(pending.status).toBe(200);
    expect(pending.body.account.status).toBe('pending');

    offsetMs = 25 * HOUR;
    const completed = await client.post<EnrollmentBody>(ENROLL, request);
    expect(completed.status).toBe(200);
    expect(completed.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(completed.body.account).toMatchObject({ accountIdentifier: pending.body.account.accountIdentifier, status: 'normal' });
    expect(await accountsOf(request.requestId)).toBe(1);
  });
});
