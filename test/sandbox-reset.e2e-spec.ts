import type { Client } from 'pg';
import { EnrollmentRequestFactory, uniqueRequestId } from './support/enrollment-factory';
import { tableDigest } from './support/hardening';
import { startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { waitUntil } from './support/wait';

const RESET = (programCode: string) => `/v1/sandbox/programs/${programCode}/data`;
const enroll = (programCode: string) => `/v1/programs/${programCode}/enrollments`;

/** Rows per table that are not acme's in `sandbox`, as text: the reset must leave them byte for byte. */
async function othersDigest(db: Client): Promise<Record<string, string>> {
  const acmeAccounts = `select id from accounts where partner_id = 'acme' and program_code = 'sandbox'`;
  const acmeUsers = `select id from users where account_id in (${acmeAccounts})`;
  const filters: Record<string, string> = {
    accounts: `not (partner_id = 'acme' and program_code = 'sandbox')`,
    users: `account_id not in (${acmeAccounts})`,
    user_addresses: `user_id not in (${acmeUsers})`,
    user_phones: `user_id not in (${acmeUsers})`,
    account_limit_keys: `account_id not in (${acmeAccounts})`,
    purses: `account_id not in (${acmeAccounts})`,
    payment_instruments: `account_id not in (${acmeAccounts})`,
    business_profiles: `account_id not in (${acmeAccounts})`,
    enrollments: `account_id not in (${acmeAccounts})`,
    care_audit: `account_id not in (${acmeAccounts})`,
    scan_captures: `not (partner_id = 'acme' and program_code = 'sandbox')`,
    idempotency_keys: `not (partner_id = 'acme' and program_code = 'sandbox')`,
    outbox_events: `not (partner_id = 'acme' and program_code = 'sandbox')`,
    webhook_deliveries: `event_id not in (select id from outbox_events where partner_id = 'acme' and program_code = 'sandbox')`,
  };
  const digest: Record<string, string> = {};
  for (const [table, where] of Object.entries(filters)) {
    const { rows } = await db.query<{ d: string; n: number }>(
      `select md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as d, count(*)::int as n from ${table} x where ${where}`,
    );
    digest[table] = `${rows[0].n}:${rows[0].d}`;
  }
  return digest;
}

describe('DELETE /v1/sandbox/programs/{programCode}/data (e2e, CONTRACT section 11)', () => {
  let app: TestApp;
  let db: Client;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await startTestApp('sandbox-reset', { webhookUrl: receiver.url, webhookSecret: receiver.secret });
    db = await app.db();
  });

  /** Deliveries update their events: wait until acme's are all delivered, so that only a reset changes rows. */
  async function acmeEventsDelivered(): Promise<void> {
    const pending = `select count(*)::int as n from outbox_events where partner_id = 'acme' and delivered_at is null and dead = false`;
    await waitUntil(async () => (await db.query<{ n: number }>(pending)).rows[0].n === 0);
  }

  afterAll(async () => {
    await db.end();
    await app.close();
    await receiver.close();
  });

  it("removes everything acme created in the program, nothing of globex or of acme's other program, and frees the limits", async () => {
    const acme = app.client('acme');
    // acme in sandbox: a consumer, a business with its profile, an OFAC hold, one short of its bill cycle, a user update, care actions, a scan capture.
    const consumer = EnrollmentRequestFactory.build();
    const enrolled = await acme.post(enroll('sandbox'), consumer);
    const accountId = (enrolled.body.account as { accountIdentifier: string }).accountIdentifier;
    const userId = (enrolled.body.user as { userIdentifier: string }).userIdentifier;
    expect((await acme.post(enroll('sandbox'), EnrollmentRequestFactory.business())).status).toBe(200);
    expect(
      (await acme.post(enroll('sandbox'), EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } }))).body.responseDetails[0],
    ).toMatchObject({ code: 5, subCode: 370 });
    await acme.post(enroll('sandbox'), EnrollmentRequestFactory.build(), { headers: { 'x-sandbox-fault': 'billCycle' } });
    const updated = await acme.put(`/v1/programs/sandbox/accounts/${accountId}/users/${userId}`, {
      encryptedUserData: { address: { type: 'mailing', addressLine1: '1 Elm St', city: 'Austin', state: 'TX', zipCode: '78701' } },
    });
    expect(updated.status).toBe(200);
    expect((await app.client('care').post(`/v1/care/accounts/${accountId}/lock`, {})).status).toBe(200);
    expect((await app.client('care').post(`/v1/care/accounts/${accountId}/unlock`, {})).status).toBe(200);
    const scan = await acme.post('/v1/kycGates/scanCapture', {
      programCode: 'sandbox',
      idType: 'matricula',
      idNumber: `MX${Date.now()}`,
      issuingCountry: 'MX',
      frontImage: Buffer.from('front').toString('base64'),
    });
    expect(scan.status).toBe(200);
    await receiver.waitFor(() => receiver.received.length > 0);

    // Others: globex in the shared program and in its own, acme in another program.
    const globex = await app.client('globex').post(enroll('sandbox'), EnrollmentRequestFactory.build());
    expect(globex.status).toBe(200);
    expect((await app.client('globex').post(enroll('other'), EnrollmentRequestFactory.build())).status).toBe(200);
    const lite = await acme.post(enroll('lite'), EnrollmentRequestFactory.build());
    expect(lite.status).toBe(200);

    await acmeEventsDelivered();
    const before = await othersDigest(db);
    const res = await acme.delete(RESET('sandbox'));
    expect(res.status).toBe(200);
    expect(res.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    expect(res.body.removed).toEqual({ accounts: 4, users: 4 });

    expect(await othersDigest(db)).toEqual(before);
    const left = await db.query(
      `select (select count(*) from accounts where partner_id = 'acme' and program_code = 'sandbox')::int as accounts,
              (select count(*) from idempotency_keys where partner_id = 'acme' and program_code = 'sandbox')::int as keys,
              (select count(*) from outbox_events where partner_id = 'acme' and program_code = 'sandbox')::int as events,
              (select count(*) from scan_captures where partner_id = 'acme' and program_code = 'sandbox')::int as scans`,
    );
    expect(left.rows[0]).toEqual({ accounts: 0, keys: 0, events: 0, scans: 0 });

    // The SSN's active slot is free again, and the requestId is new.
    const again = await acme.post(enroll('sandbox'), consumer);
    expect(again.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect((again.body.account as { accountIdentifier: string }).accountIdentifier).not.toBe(accountId);
    const gone = await acme.get(`/v1/programs/sandbox/enrollments/accounts/${accountId}`);
    expect(gone.status).toBe(404);

    const twice = await acme.delete(RESET('sandbox'));
    expect(twice.body.removed).toEqual({ accounts: 1, users: 1 });
    const empty = await acme.delete(RESET('sandbox'));
    expect(empty.body.removed).toEqual({ accounts: 0, users: 0 });
  });

  it('waits for an enrollment of the partner in flight (its shared data lock), and is checked for scope and program', async () => {
    const request = EnrollmentRequestFactory.build({ requestId: uniqueRequestId('inflight') });
    const interrupted = await app.client().post(enroll('sandbox'), request, { headers: { 'x-sandbox-fault': 'after:accountWritten' }, noRetry: true });
    expect(interrupted.status).toBe(503);
    const [retried, reset] = await Promise.all([app.client().post(enroll('sandbox'), request), app.client().delete(RESET('sandbox'))]);
    expect(reset.status).toBe(200);
    // Either order is consistent: the reset removed the finished enrollment, or the retry ran after the reset and started afresh.
    expect(retried.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    const after = await db.query(`select count(*)::int as n from accounts where partner_id = 'acme' and program_code = 'sandbox' and request_id = $1`, [
      request.requestId,
    ]);
    expect(after.rows[0].n).toBeLessThanOrEqual(1);

    const scoped = await app.client('acme', { scope: 'users' }).delete(RESET('sandbox'));
    expect({ status: scoped.status, detail: scoped.body.responseDetails[0] }).toMatchObject({ status: 403, detail: { code: 403, subCode: 1 } });
    const program = await app.client().delete(RESET('other'));
    expect({ status: program.status, detail: program.body.responseDetails[0] }).toMatchObject({ status: 403, detail: { code: 403, subCode: 2 } });
    expect((await app.client().delete(RESET('sandbox'), undefined, { anonymous: true })).status).toBe(401);
  });

  it('a delivery attempt logged for one of its events while the reset runs does not fail it (the events are locked before their log is deleted)', async () => {
    await acmeEventsDelivered();
    expect((await app.client().post(enroll('sandbox'), EnrollmentRequestFactory.build())).status).toBe(200);
    await acmeEventsDelivered();
    // A delivery in progress: it holds one of acme's events, as the dispatcher's attempt does…
    const dispatcher = await app.db();
    const observer = await app.db();
    try {
      await dispatcher.query('begin');
      const { rows } = await dispatcher.query<{ id: string }>(
        `select id from outbox_events where partner_id = 'acme' and program_code = 'sandbox' limit 1 for no key update`,
      );
      const eventId = rows[0]?.id as string;
      const reset = app.client().delete(RESET('sandbox'));
      // …the reset reaches that event and waits for it…
      await waitUntil(
        async () =>
          (
            await observer.query<{ n: number }>(
              `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%outbox_events%'`,
            )
          ).rows[0].n > 0,
        10_000,
        20,
      );
      // …and the attempt is logged and committed meanwhile.
      await dispatcher.query(
        `insert into webhook_deliveries (event_id, attempt, url, status_code, outcome, duration_ms) values ($1, 9, 'https://hook.test', 200, 'delivered', 1)`,
        [eventId],
      );
      await dispatcher.query('commit');
      const res = await reset;
      expect({ status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ status: 200, detail: { code: 0, subCode: 0 } });
      const left = await observer.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where event_id = $1`, [eventId]);
      expect(left.rows[0].n).toBe(0);
    } finally {
      await dispatcher.end();
      await observer.end();
    }
  });

  it('leaves the whole schema unchanged when the partner has nothing there', async () => {
    // The previous test's retried enrollment may have run after its reset: its events are still being delivered.
    await acmeEventsDelivered();
    const before = await tableDigest(db);
    const res = await app.client('acme').delete(RESET('lite'));
    expect(res.body.removed).toEqual({ accounts: 1, users: 1 });
    expect(await tableDigest(db)).not.toEqual(before);
    const unchanged = await tableDigest(db);
    expect((await app.client('acme').delete(RESET('lite'))).body.removed).toEqual({ accounts: 0, users: 0 });
    expect(await tableDigest(db)).toEqual(unchanged);
  });
});
