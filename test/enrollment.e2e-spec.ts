import { EnrollmentRequestFactory, uniqueRequestId } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

describe('Enrollment (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('enrollment');
  });

  afterAll(async () => {
    await app.close();
  });

  it('enrolls a consumer: account normal, primary purse, active card, no encrypted data for a plain partner', async () => {
    const request = EnrollmentRequestFactory.build();
    const res = await app.client().post(ENROLL, request);
    expect(res.status).toBe(200);
    expect(res.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    expect(res.body.requestId).toBe(request.requestId);
    const account = res.body.account as Record<string, unknown>;
    expect(account).toMatchObject({ programCode: 'sandbox', accountType: 'consumer', status: 'normal', statusReason: null, kycPendingGate: 'none', currency: 'USD' });
    expect(account.accountCycleDay).toBe(Math.min(new Date().getUTCDate(), 28));
    expect(account.purses).toEqual([expect.objectContaining({ purseType: 'primary', currency: 'USD', availableBalance: '0.00', ledgerBalance: '0.00' })]);
    expect(account).not.toHaveProperty('encryptedAccountData');
    expect(res.body.user).toMatchObject({ isPrimaryAccountHolder: true, status: 'active' });
    expect(res.body.user).not.toHaveProperty('encryptedUserData');
    expect(res.body.paymentInstruments).toEqual([
      expect.objectContaining({ type: 'virtual', status: 'active', embossedName: 'JOSE NUNEZ', last4: expect.stringMatching(/^\d{4}$/), expirationDate: expect.stringMatching(/^\d{4}-\d{2}$/) }),
    ]);
    const got = await app.client().get(`${ENROLL}/accounts/${account.accountIdentifier as string}`);
    expect(got.status).toBe(200);
    expect(got.body.account).toEqual(account);
    expect(got.body.paymentInstruments).toEqual(res.body.paymentInstruments);
  });

  it('answers 404/10/0 for a malformed, unknown or foreign account', async () => {
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const res = await app.client().get(`${ENROLL}/accounts/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 10, subCode: 0, description: 'Account Not Found' });
    }
    const created = await app.client('globex').post(ENROLL, EnrollmentRequestFactory.build());
    expect(created.status).toBe(200);
    const id = (created.body.account as { accountIdentifier: string }).accountIdentifier;
    const foreign = await app.client('acme').get(`${ENROLL}/accounts/${id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.responseDetails[0]).toMatchObject({ code: 10, subCode: 0 });
    const otherProgram = await app.client('acme').get(`/v1/programs/lite/enrollments/accounts/${id}`);
    expect(otherProgram.status).toBe(404);
  });

  it('smoke: requestId reuse replays', async () => {
    const request = EnrollmentRequestFactory.build({ requestId: uniqueRequestId() });
    const first = await app.client().post(ENROLL, request);
    const second = await app.client().post(ENROLL, request);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });
});
