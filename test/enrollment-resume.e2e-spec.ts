import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

interface EnrollmentBody {
  responseDetails: Array<{ code: number; subCode: number }>;
  account: { accountIdentifier: string; status: string; accountCycleDay: number | null };
  user: { userIdentifier: string };
  paymentInstruments: Array<{ paymentIdentifier: string; status: string }>;
}

/** Recovery points after which the sandbox can interrupt an enrollment (ARCHITECTURE.md). */
const POINTS = ['accountWritten', 'kycDecided', 'billCycleAssigned', 'instrumentIssued', 'finished'];

describe('Enrollment interrupted at each recovery point (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('resume');
  });

  afterAll(async () => {
    await app.close();
  });

  it.each(POINTS)('after %s: the identical retry completes as originally intended, with no duplicate rows', async (point) => {
    const client = app.client();
    const request = EnrollmentRequestFactory.build();
    const interrupted = await client.post(ENROLL, request, { headers: { 'x-sandbox-fault': `after:${point}` }, noRetry: true });
    expect(interrupted.status).toBe(503);
    expect(interrupted.body.responseDetails[0]).toMatchObject({ code: 503, subCode: 2 });
    expect(interrupted.headers.get('retry-after')).toMatch(/^\d+$/);

    const db = await app.db();
    try {
      const partial = await db.query(`select id, status from accounts where request_id = $1`, [request.requestId]);
      expect(partial.rows).toHaveLength(1);
      const {
        rows: [progress],
      } = await db.query(`select recovery_point from enrollments where account_id = $1`, [partial.rows[0].id]);
      expect(progress).toEqual({ recovery_point: point });
      const {
        rows: [key],
      } = await db.query(`select response_body from idempotency_keys where request_id = $1`, [request.requestId]);
      expect(key).toEqual({ response_body: null });

      // CONTRACT sections 6 and 7: pending and never activated, the account shows no cycle day and no
      // card (not the ones the interrupted call already wrote), and no event has announced either.
      const events = async () =>
        (await db.query(`select event_type as type, payload from outbox_events where account_id = $1 order by seq`, [partial.rows[0].id])).rows as Array<{
          type: string;
          payload: { accountCycleDay?: number | null; paymentIdentifier?: string; status?: string };
        }>;
      if (point !== 'finished') {
        const announced = await events();
        expect({
          point,
          cards: announced.filter((e) => e.type === 'cardUpdated'),
          cycleDays: announced.map((e) => e.payload.accountCycleDay ?? null).filter((d) => d !== null),
        }).toEqual({
          point,
          cards: [],
          cycleDays: [],
        });
      }
      const meanwhile = await client.get<EnrollmentBody>(`${ENROLL}/accounts/${partial.rows[0].id}`);
      expect(meanwhile.status).toBe(200);
      if (point === 'finished') {
        expect(meanwhile.body.account).toMatchObject({ status: 'normal', accountCycleDay: Math.min(new Date().getUTCDate(), 28) });
      } else {
        expect({ account: meanwhile.body.account, cards: meanwhile.body.paymentInstruments }).toMatchObject({
          account: { status: 'pending', accountCycleDay: null },
          cards: [],
        });
        // Never activated, whatever care does meanwhile: locked, it still shows neither.
        expect((await app.client('care').post(`/v1/care/accounts/${partial.rows[0].id}/lock`, {})).status).toBe(200);
        const locked = await client.get<EnrollmentBody>(`${ENROLL}/accounts/${partial.rows[0].id}`);
        expect({ account: locked.body.account, cards: locked.body.paymentInstruments }).toMatchObject({
          account: { status: 'locked', accountCycleDay: null },
          cards: [],
        });
        expect((await app.client('care').post(`/v1/care/accounts/${partial.rows[0].id}/unlock`, {})).status).toBe(200);
      }

      const retried = await client.post<EnrollmentBody>(ENROLL, request);
      expect(retried.status).toBe(200);
      // Once it completes, the events say what the answer shows: the cycle day, and the card issued.
      const card = retried.body.paymentInstruments[0];
      const all = await events();
      expect(all.filter((e) => e.type === 'cardUpdated').map((e) => ({ id: e.payload.paymentIdentifier, status: e.payload.status }))).toEqual([
        { id: card.paymentIdentifier, status: 'active' },
      ]);
      expect(all.filter((e) => e.type === 'accountUpdated').at(-1)?.payload).toMatchObject({
        status: 'normal',
        accountCycleDay: retried.body.account.accountCycleDay,
      });
      expect(retried.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
      expect(retried.body.account.accountIdentifier).toBe(partial.rows[0].id);
      expect(retried.body.account.status).toBe('normal');
      expect(retried.body.account.accountCycleDay).toBe(Math.min(new Date().getUTCDate(), 28));
      expect(retried.body.paymentInstruments).toHaveLength(1);
      expect(retried.body.paymentInstruments[0].status).toBe('active');

      const {
        rows: [counts],
      } = await db.query(
        `select (select count(*) from accounts where request_id = $1)::int as accounts,
                (select count(*) from users where account_id = $2)::int as users,
                (select count(*) from purses where account_id = $2)::int as purses,
                (select count(*) from payment_instruments where account_id = $2)::int as cards,
                (select count(*) from account_limit_keys where account_id = $2 and key_kind = 'ssn')::int as ssn_keys`,
        [request.requestId, partial.rows[0].id],
      );
      expect(counts).toEqual({ accounts: 1, users: 1, purses: 1, cards: 1, ssn_keys: 1 });

      const replay = await client.post<EnrollmentBody>(ENROLL, request);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(retried.body);
    } finally {
      await db.end();
    }
  });
});
