import type { ApiBody } from '../client/enrollment-client';
import { EnrollmentRequest, EnrollmentRequestFactory } from './support/enrollment-factory';
import { accountIdOfRequest, startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

interface Card {
  paymentIdentifier: string;
  status: string;
  embossedName: string;
  embossedBusinessName?: string;
}
interface View extends ApiBody {
  account: {
    accountIdentifier: string;
    status: string;
    statusReason: string | null;
    kycPendingGate: string;
    accountCycleDay: number | null;
    closedDateTime: string | null;
    encryptedAccountData?: string;
  };
  user: { userIdentifier: string; encryptedUserData?: string };
  paymentInstruments: Card[];
}
interface AuditEntry {
  action: string;
  actor: string;
  at: string;
  before: { status: string; statusReason: string | null; kycPendingGate: string; paymentInstruments: Array<{ paymentIdentifier: string; status: string }> };
  after: { status: string; statusReason: string | null; kycPendingGate: string; paymentInstruments: Array<{ paymentIdentifier: string; status: string }> };
  detail: Record<string, unknown>;
}

// Long enough against the queue's 0.5 s poll that the first two retries run well inside the window:
// a failure at or after its end ends the run (SERVICE.md: all within 15 minutes).
const UNBLOCK_DELAYS = [1_000, 1_000, 3_000];
const UNBLOCK_WINDOW_MS = UNBLOCK_DELAYS.reduce((a, b) => a + b, 0);

describe('Care operations (e2e)', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await startTestApp('care', {
      webhookUrl: receiver.url,
      webhookSecret: receiver.secret,
      env: { UNBLOCK_RETRY_DELAYS_MS: UNBLOCK_DELAYS.join(','), WEBHOOK_RETRY_DELAYS_MS: '200,200' },
    });
  });

  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  const care = () => app.client('care');
  const path = (accountId: string, op = '') => `/v1/care/accounts/${accountId}${op ? `/${op}` : ''}`;

  async function enroll(request: EnrollmentRequest = EnrollmentRequestFactory.build()) {
    const res = await app.client('acme').post<View>('/v1/programs/sandbox/enrollments', request);
    expect(res.status).toBe(200);
    return res.body;
  }

  async function act(accountId: string, op: string, body?: unknown) {
    const res = await care().post<View>(path(accountId, op), body);
    expect(res.status).toBe(200);
    expect(res.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    return res.body;
  }

  async function expectNotApplicable(accountId: string, op: string, method: 'post' | 'delete' = 'post') {
    const res = await care()[method](path(accountId, op), {});
    expect(res.status).toBe(409);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 390 });
  }

  async function auditOf(accountId: string): Promise<AuditEntry[]> {
    const res = await care().get<{ auditTrail: AuditEntry[] } & ApiBody>(path(accountId, 'audit'));
    expect(res.status).toBe(200);
    return res.body.auditTrail;
  }

  async function waitForView(accountId: string, done: (view: View) => boolean): Promise<View> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await care().get<View>(path(accountId));
      expect(res.status).toBe(200);
      if (done(res.body)) return res.body;
      if (Date.now() > deadline) throw new Error(`account ${accountId} never reached the state: ${JSON.stringify(res.body.account)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function waitForAudit(accountId: string, done: (trail: AuditEntry[]) => boolean): Promise<AuditEntry[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const trail = await auditOf(accountId);
      if (done(trail)) return trail;
      if (Date.now() > deadline) throw new Error(`account ${accountId} never reached the audit state: ${JSON.stringify(trail.map((e) => e.action))}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Whether `actual` holds every value of `expected` (deeply). */
  function contains(actual: unknown, expected: unknown): boolean {
    if (expected === null || typeof expected !== 'object') return actual === expected;
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([key, value]) => contains((actual as Record<string, unknown>)[key], value));
  }

  /** Waits for a delivered webhook of the account and type whose data holds `expected`; returns its data. */
  async function eventWith(accountId: string, eventType: string, expected: Record<string, unknown>) {
    const match = () =>
      receiver.received.find(
        (w) => w.json.accountIdentifier === accountId && w.json.eventType === eventType && w.answered === 200 && contains(w.json.data, expected),
      );
    await receiver.waitFor(() => match() !== undefined);
    const webhook = match() as NonNullable<ReturnType<typeof match>>;
    expect(webhook.verified).toBe(true);
    return webhook.json.data;
  }

  it('lock and unlock: 200 with the current view, 409 when not applicable, events and audit trail', async () => {
    const enrolled = await enroll();
    const id = enrolled.account.accountIdentifier;
    const locked = await care().post<View>(path(id, 'lock'), undefined, { headers: { 'x-care-agent': 'agent-7' } });
    expect(locked.status).toBe(200);
    expect(locked.body.account).toMatchObject({ accountIdentifier: id, status: 'locked', statusReason: 'careLock' });
    expect(locked.body.paymentInstruments).toEqual([
      expect.objectContaining({ paymentIdentifier: enrolled.paymentInstruments[0].paymentIdentifier, status: 'active' }),
    ]);
    expect(locked.body.account.encryptedAccountData).toBeUndefined();
    expect(locked.body.user.encryptedUserData).toBeUndefined();
    await expectNotApplicable(id, 'lock');

    // A locked account's user profile cannot be updated (SERVICE.md rule 2).
    const update = await app
      .client('acme')
      .put(`/v1/programs/sandbox/accounts/${id}/users/${enrolled.user.userIdentifier}`, { encryptedUserData: { email: { emailAddress: 'new@example.com' } } });
    expect(update.status).toBe(200);
    expect(update.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 362 });

    const unlocked = await act(id, 'unlock', { requestId: 'care-unlock-1' });
    expect(unlocked.requestId).toBe('care-unlock-1');
    expect(unlocked.account).toMatchObject({ status: 'normal', statusReason: null, kycPendingGate: 'none' });
    await expectNotApplicable(id, 'unlock');

    await eventWith(id, 'accountUpdated', { status: 'locked', statusReason: 'careLock', previous: { status: 'normal' }, reason: 'care.lock' });
    await eventWith(id, 'accountUpdated', { status: 'normal', statusReason: null, previous: { status: 'locked' }, reason: 'care.unlock' });
    const trail = await auditOf(id);
    expect(trail.map((e) => [e.action, e.actor, e.before.status, e.after.status])).toEqual([
      ['lock', 'care/agent-7', 'normal', 'locked'],
      ['unlock', 'care', 'locked', 'normal'],
    ]);
    expect(trail.every((e) => /Z$/.test(e.at))).toBe(true);
  });

  it("unlock and a fraud block's removal keep SERVICE.md's active limit: another account of the SSN enrolled meanwhile is a 2/60 refusal, nothing changed", async () => {
    for (const [block, release] of [
      ['lock', (id: string) => care().post<View>(path(id, 'unlock'), {})],
      ['fraudBlock', (id: string) => care().delete<View>(path(id, 'fraudBlock'))],
    ] as const) {
      const request = EnrollmentRequestFactory.build();
      const first = (await enroll(request)).account.accountIdentifier;
      await act(first, block);
      // While blocked the account is not active (SERVICE.md), so the SSN may enroll again.
      const ssn = request.encryptedUserData.identifyingData.ssn;
      const second = await enroll(EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn } } }));
      expect(second.account.status).toBe('normal');
      const refused = await release(first);
      expect({ status: refused.status, detail: refused.body.responseDetails[0] }).toMatchObject({ status: 200, detail: { code: 2, subCode: 60 } });
      const view = (await care().get<View>(path(first))).body;
      expect(view.account.status).toBe('locked');
      if (block === 'fraudBlock') expect(view.account.statusReason).toBe('fraudBlock');
      expect((await auditOf(first)).map((entry) => entry.action)).toEqual([block]);
      // Once the other account is closed, the SSN has room again.
      await act(second.account.accountIdentifier, 'close');
      const released = await release(first);
      expect(released.body.account).toMatchObject({ status: 'normal' });
    }
  });

  it('an operation without a body answers 200 even when the caller sends Content-Type: application/json with no content', async () => {
    const id = (await enroll()).account.accountIdentifier;
    for (const op of ['lock', 'unlock']) {
      const res = await care().post<View>(path(id, op), undefined, { rawBody: '', headers: { 'content-type': 'application/json' } });
      expect({ op, status: res.status, detail: res.body.responseDetails[0] }).toEqual({
        op,
        status: 200,
        detail: { code: 0, subCode: 0, description: 'Success' },
      });
    }
    // Content that is not JSON is still malformed: only no content at all counts as no body.
    const blank = await care().post<View>(path(id, 'lock'), undefined, { rawBody: ' ', headers: { 'content-type': 'application/json' } });
    expect(blank.status).toBe(400);
    expect(blank.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 1 });
  });

  it('close: account and cards closed, then nothing else applies', async () => {
    const enrolled = await enroll();
    const id = enrolled.account.accountIdentifier;
    const closed = await act(id, 'close');
    expect(closed.account).toMatchObject({ status: 'closed' });
    expect(closed.account.closedDateTime).toMatch(/Z$/);
    expect(closed.paymentInstruments.map((c) => c.status)).toEqual(['closed']);
    for (const op of ['close', 'lock', 'unlock', 'fraudBlock', 'kycGate/clear', 'ofacClear']) await expectNotApplicable(id, op);
    await expectNotApplicable(id, 'fraudBlock', 'delete');
    const replace = await care().post(path(id, `paymentInstruments/${enrolled.paymentInstruments[0].paymentIdentifier}/replace`));
    expect(replace.status).toBe(409);
    expect(replace.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 390 });
    await eventWith(id, 'cardUpdated', { paymentIdentifier: enrolled.paymentInstruments[0].paymentIdentifier, status: 'closed', previousStatus: 'active' });
    await eventWith(id, 'accountUpdated', { status: 'closed', reason: 'care.close' });
  });

  it('answers 404/10/0 for unknown accounts and cards, 403/1 without scope care, 400 for unknown properties', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const res = await care().post(path(id, 'lock'));
      expect(res.status).toBe(404);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 10, subCode: 0, description: 'Account Not Found' });
    }
    const enrolled = await enroll();
    const id = enrolled.account.accountIdentifier;
    const card = await care().post(path(id, 'paymentInstruments/00000000-0000-4000-8000-000000000000/replace'));
    expect(card.status).toBe(404);
    expect(card.body.responseDetails[0]).toMatchObject({ code: 10, subCode: 0 });
    const partner = await app.client('acme').post(path(id, 'lock'));
    expect(partner.status).toBe(403);
    expect(partner.body.responseDetails[0]).toMatchObject({ code: 403, subCode: 1 });
    const unknown = await care().post(path(id, 'lock'), { status: 'normal' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 2, field: 'status' });
    expect((await care().get<View>(path(id))).body.account.status).toBe('normal');
  });

  it('fraud block: account locked, cards blocked; only DELETE fraudBlock lifts it', async () => {
    const enrolled = await enroll();
    const id = enrolled.account.accountIdentifier;
    const blocked = await act(id, 'fraudBlock');
    expect(blocked.account).toMatchObject({ status: 'locked', statusReason: 'fraudBlock' });
    expect(blocked.paymentInstruments.map((c) => c.status)).toEqual(['blocked']);
    await expectNotApplicable(id, 'fraudBlock');
    await expectNotApplicable(id, 'unlock');
    await expectNotApplicable(id, 'lock');
    await eventWith(id, 'cardUpdated', { status: 'blocked', previousStatus: 'active', reason: 'care.fraudBlock' });
    await eventWith(id, 'accountUpdated', { status: 'locked', statusReason: 'fraudBlock' });
  });

  it('validates sandboxUnblockFailures and refuses DELETE fraudBlock on an account that is not blocked', async () => {
    const enrolled = await enroll();
    const id = enrolled.account.accountIdentifier;
    await expectNotApplicable(id, 'fraudBlock', 'delete');
    await act(id, 'fraudBlock');
    for (const value of [-1, 1.5, 'two']) {
      const res = await care().delete(path(id, 'fraudBlock'), { sandboxUnblockFailures: value });
      expect(res.status).toBe(400);
      expect(res.body.responseDetails[0]).toMatchObject({ field: 'sandboxUnblockFailures' });
    }
    expect((await care().get<View>(path(id))).body.account.statusReason).toBe('fraudBlock');
  });

  describe.each([0, 1, 2])('fraud block removed with %i unblock failure(s)', (failures) => {
    it('ends with the card active after the retries, account normal throughout', async () => {
      const enrolled = await enroll();
      const id = enrolled.account.accountIdentifier;
      const cardId = enrolled.paymentInstruments[0].paymentIdentifier;
      await act(id, 'fraudBlock');
      const res = await care().delete<View>(path(id, 'fraudBlock'), failures === 0 ? undefined : { sandboxUnblockFailures: failures });
      expect(res.status).toBe(200);
      // Healthy and normal at once; the card is still blocked until a retry unblocks it.
      expect(res.body.account).toMatchObject({ status: 'normal', statusReason: null, kycPendingGate: 'none' });
      expect(res.body.paymentInstruments).toEqual([expect.objectContaining({ paymentIdentifier: cardId, status: 'blocked' })]);

      const view = await waitForView(id, (v) => v.paymentInstruments[0].status !== 'blocked');
      expect(view.paymentInstruments).toEqual([expect.objectContaining({ paymentIdentifier: cardId, status: 'active' })]);
      expect(view.account).toMatchObject({ status: 'normal', statusReason: null, kycPendingGate: 'none' });

      const attempts = (await auditOf(id)).filter((e) => e.action.startsWith('cardUnblock.'));
      expect(attempts.map((e) => [e.action, e.detail.attempt, e.actor])).toEqual([
        ...Array.from({ length: failures }, (_v, i) => ['cardUnblock.failed', i + 1, 'system:card-unblock']),
        ['cardUnblock.succeeded', failures + 1, 'system:card-unblock'],
      ]);
      await eventWith(id, 'cardUpdated', { paymentIdentifier: cardId, status: 'active', previousStatus: 'blocked', reason: 'care.unblock' });
      await eventWith(id, 'accountUpdated', { status: 'normal', previous: { statusReason: 'fraudBlock' }, reason: 'care.fraudBlockRemoved' });
    });
  });

  it('a care lock held past the unblock window ends the run as exhausted: all attempts within the window; unlock restores the account under review with the manual gate (SERVICE.md: up to 3 retries, all within 15 minutes)', async () => {
    const enrolled = await enroll();
    const id = enrolled.account.accountIdentifier;
    const cardId = enrolled.paymentInstruments[0].paymentIdentifier;
    await act(id, 'fraudBlock');
    expect((await care().delete<View>(path(id, 'fraudBlock'))).status).toBe(200);
    await act(id, 'lock');
    // The window is the delays' sum; the attempt looks again until its end, then the run ends.
    const exhausted = await waitForAudit(id, (trail) => trail.some((e) => e.action === 'cardUnblock.exhausted'));
    const removal = exhausted.find((e) => e.action === 'fraudBlock.remove') as AuditEntry;
    const attempts = exhausted.filter((e) => e.action.startsWith('cardUnblock.'));
    expect(attempts.map((e) => [e.action, e.actor])).toEqual([['cardUnblock.exhausted', 'system:card-unblock']]);
    // Ended within the window (plus the queue's poll and this machine's slack), not left waiting for the unlock.
    expect(Date.parse(attempts[0].at) - Date.parse(removal.at)).toBeLessThan(UNBLOCK_WINDOW_MS + 2_000);
    // Still care's lock, card still blocked: the partner sees nothing change until care unlocks.
    const locked = await care().get<View>(path(id));
    expect(locked.body.account).toMatchObject({ status: 'locked', statusReason: 'careLock' });
    expect(locked.body.paymentInstruments).toEqual([expect.objectContaining({ paymentIdentifier: cardId, status: 'blocked' })]);

    const unlocked = await act(id, 'unlock');
    expect(unlocked.account).toMatchObject({ status: 'normal', statusReason: 'underReview', kycPendingGate: 'manual' });
    expect(unlocked.paymentInstruments).toEqual([expect.objectContaining({ paymentIdentifier: cardId, status: 'blocked' })]);
    await eventWith(id, 'accountUpdated', { kycPendingGate: 'manual', statusReason: 'underReview', reason: 'care.unlock' });
    // Nothing unblocks it later: care finishes by hand.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await care().get<View>(path(id))).body.paymentInstruments).toEqual([expect.objectContaining({ status: 'blocked' })]);
    const cleared = await act(id, 'kycGate/clear');
    expect(cleared.account).toMatchObject({ status: 'normal', statusReason: null, kycPendingGate: 'none' });
    expect(cleared.paymentInstruments).toEqual([expect.objectContaining({ paymentIdentifier: cardId, status: 'active' })]);
  });

  it('sandboxUnblockFailures above 3 is taken as 3: every attempt fails (CONTRACT section 10, N ≥ 3)', async () => {
    const enrolled = await enroll();
    const id = enrolled.account.accountIdentifier;
    await act(id, 'fraudBlock');
    const removed = await care().delete<View>(path(id, 'fraudBlock'), { sandboxUnblockFailures: 20 });
    expect(removed.status).toBe(200);
    const view = await waitForView(id, (v) => v.account.kycPendingGate === 'manual');
    expect(view.paymentInstruments).toEqual([expect.objectContaining({ status: 'blocked' })]);
    const attempts = (await auditOf(id)).filter((e) => e.action.startsWith('cardUnblock.'));
    expect(attempts.map((e) => e.action)).toEqual(['cardUnblock.failed', 'cardUnblock.failed', 'cardUnblock.exhausted']);
  });

  it('fraud block removed with 3 unblock failures: kycPendingGate manual, statusReason underReview; care then clears the gate', async () => {
    const enrolled = await enroll();
    const id = enrolled.account.accountIdentifier;
    const cardId = enrolled.paymentInstruments[0].paymentIdentifier;
    await act(id, 'fraudBlock');
    const removed = await care().delete<View>(path(id, 'fraudBlock'), { sandboxUnblockFailures: 3 });
    expect(removed.status).toBe(200);
    const view = await waitForView(id, (v) => v.account.kycPendingGate === 'manual');
    expect(view.account).toMatchObject({ kycPendingGate: 'manual', statusReason: 'underReview' });
    expect(view.paymentInstruments).toEqual([expect.objectContaining({ paymentIdentifier: cardId, status: 'blocked' })]);

    const trail = await auditOf(id);
    const removal = trail.find((e) => e.action === 'fraudBlock.remove') as AuditEntry;
    const attempts = trail.filter((e) => e.action.startsWith('cardUnblock.'));
    expect(attempts.map((e) => [e.action, e.detail.attempt])).toEqual([
      ['cardUnblock.failed', 1],
      ['cardUnblock.failed', 2],
      ['cardUnblock.exhausted', 3],
    ]);
    // Each retry waits its configured delay after the previous step, cut to the window's end; none comes sooner, none is due later.
    const times = [removal, ...attempts].map((e) => Date.parse(e.at));
    const end = (times[0] as number) + UNBLOCK_WINDOW_MS;
    attempts.forEach((_e, i) => {
      expect((times[i + 1] as number) - (times[i] as number)).toBeGreaterThanOrEqual(Math.min(UNBLOCK_DELAYS[i] as number, end - (times[i] as number)) - 5);
      expect(times[i + 1]).toBeLessThan(end + 2_000);
    });
    await eventWith(id, 'accountUpdated', { kycPendingGate: 'manual', statusReason: 'underReview', reason: 'care.unblockFailed' });

    const cleared = await act(id, 'kycGate/clear');
    expect(cleared.account).toMatchObject({ status: 'normal', kycPendingGate: 'none', statusReason: null });
    expect(cleared.paymentInstruments).toEqual([expect.objectContaining({ paymentIdentifier: cardId, status: 'active' })]);
    await expectNotApplicable(id, 'kycGate/clear');
  });

  it('a KYC gate cleared while the referred enrollment was interrupted after its card: the retry completes it normal with the card active (CONTRACT section 8)', async () => {
    const request = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer' } });
    const interrupted = await app.client('acme').post('/v1/programs/sandbox/enrollments', request, {
      headers: { 'x-sandbox-fault': 'after:instrumentIssued' },
      noRetry: true,
    });
    expect(interrupted.status).toBe(503);
    const id = await accountIdOfRequest(app, request.requestId);
    const cleared = await act(id, 'kycGate/clear');
    expect(cleared.account).toMatchObject({ status: 'pending', kycPendingGate: 'none', statusReason: null });
    const completed = await enroll(request);
    expect(completed.account).toMatchObject({ status: 'normal', kycPendingGate: 'none', statusReason: null });
    expect(completed.paymentInstruments).toEqual([expect.objectContaining({ status: 'active' })]);
    await eventWith(id, 'cardUpdated', { status: 'active', previousStatus: null, reason: 'issued' });
    const view = await care().get<View>(path(id));
    expect(view.body.paymentInstruments).toEqual([expect.objectContaining({ status: 'active' })]);
  });

  it('SERVICE.md: fraud block removed, account set to healthy and normal — a KYC-referred account is not restored to its state before the block', async () => {
    const enrolled = await enroll(EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer' } }));
    const id = enrolled.account.accountIdentifier;
    expect(enrolled.account).toMatchObject({ status: 'pending', statusReason: 'underReview', kycPendingGate: 'manual' });
    const blocked = await act(id, 'fraudBlock');
    expect(blocked.account).toMatchObject({ status: 'locked', statusReason: 'fraudBlock', kycPendingGate: 'manual' });
    expect(blocked.paymentInstruments.map((c) => c.status)).toEqual(['blocked']);

    const removed = await care().delete<View>(path(id, 'fraudBlock'));
    expect(removed.status).toBe(200);
    expect(removed.body.account).toMatchObject({
      status: 'normal',
      statusReason: null,
      kycPendingGate: 'none',
      accountCycleDay: enrolled.account.accountCycleDay,
    });
    expect(removed.body.paymentInstruments.map((c) => c.status)).toEqual(['blocked']);
    // The first unblock attempt succeeds and, with no gate left, makes the card active (not inactive).
    const view = await waitForView(id, (v) => v.paymentInstruments[0].status !== 'blocked');
    expect(view.paymentInstruments.map((c) => c.status)).toEqual(['active']);
    expect(view.account).toMatchObject({ status: 'normal', statusReason: null, kycPendingGate: 'none' });
    await eventWith(id, 'accountUpdated', {
      status: 'normal',
      statusReason: null,
      kycPendingGate: 'none',
      previous: { status: 'locked', statusReason: 'fraudBlock', kycPendingGate: 'manual' },
      reason: 'care.fraudBlockRemoved',
    });
  });

  it('SERVICE.md: an account must have a bill cycle date to have status normal — fraud block removed from an account without one returns it to pending', async () => {
    const request = EnrollmentRequestFactory.build();
    const res = await app.client('acme').post<View>('/v1/programs/sandbox/enrollments', request, { headers: { 'x-sandbox-fault': 'billCycle' } });
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ status: 'pending', accountCycleDay: null });
    const id = res.body.account.accountIdentifier;
    await act(id, 'fraudBlock');
    const removed = await care().delete<View>(path(id, 'fraudBlock'));
    expect(removed.status).toBe(200);
    expect(removed.body.account).toMatchObject({ status: 'pending', statusReason: null, kycPendingGate: 'none', accountCycleDay: null });
    expect(removed.body.paymentInstruments).toEqual([]);

    // Still completed as originally intended by the identical retry.
    const retry = await app.client('acme').post<View>('/v1/programs/sandbox/enrollments', request);
    expect(retry.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(retry.body.account).toMatchObject({ accountIdentifier: id, status: 'normal', statusReason: null, kycPendingGate: 'none' });
    expect(retry.body.account.accountCycleDay).toEqual(expect.any(Number));
    expect(retry.body.paymentInstruments.map((c) => c.status)).toEqual(['active']);
  });

  it("a partner's retry of an unfinished enrollment leaves a care lock, fraud block or closure as care left it; once care lifts a block, the retry completes it", async () => {
    const acme = app.client('acme');
    const ENROLL = '/v1/programs/sandbox/enrollments';
    for (const [op, expected] of [
      ['lock', { status: 'locked', statusReason: 'careLock' }],
      ['fraudBlock', { status: 'locked', statusReason: 'fraudBlock' }],
      ['close', { status: 'closed' }],
    ] as const) {
      const request = EnrollmentRequestFactory.build();
      const first = await acme.post<View>(ENROLL, request, { headers: { 'x-sandbox-fault': 'billCycle' } });
      expect(first.body.account).toMatchObject({ status: 'pending', accountCycleDay: null });
      const id = first.body.account.accountIdentifier;
      await act(id, op);
      const retry = await acme.post<View>(ENROLL, request);
      expect({ op, status: retry.status, account: retry.body.account }).toMatchObject({
        op,
        status: 200,
        account: { accountIdentifier: id, ...expected, accountCycleDay: null },
      });
      expect(retry.body.paymentInstruments).toEqual([]);
      const now = await acme.get<View>(`${ENROLL}/accounts/${id}`);
      expect({ op, account: now.body.account, cards: now.body.paymentInstruments }).toMatchObject({
        op,
        account: { ...expected, accountCycleDay: null },
        cards: [],
      });
    }
    // Unlocked by care, pending again: the identical retry completes the enrollment as originally intended.
    const request = EnrollmentRequestFactory.build();
    const first = await acme.post<View>(ENROLL, request, { headers: { 'x-sandbox-fault': 'billCycle' } });
    const id = first.body.account.accountIdentifier;
    await act(id, 'lock');
    expect((await acme.post<View>(ENROLL, request)).body.account).toMatchObject({ status: 'locked' });
    await act(id, 'unlock');
    const completed = await acme.post<View>(ENROLL, request);
    expect(completed.body.account).toMatchObject({ accountIdentifier: id, status: 'normal', statusReason: null });
    expect(completed.body.paymentInstruments.map((c) => c.status)).toEqual(['active']);
  });

  it('an OFAC-held enrollment that care closed stays closed: its retry does not get past the hold', async () => {
    const acme = app.client('acme');
    const request = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } });
    const held = await acme.post<View>('/v1/programs/sandbox/enrollments', request);
    expect(held.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    const id = held.body.account.accountIdentifier;
    await act(id, 'close');
    const retry = await acme.post<View>('/v1/programs/sandbox/enrollments', request);
    expect(retry.status).toBe(200);
    expect(retry.body.account).toMatchObject({ accountIdentifier: id, status: 'closed', accountCycleDay: null });
    expect(retry.body.paymentInstruments).toEqual([]);
    // The same SSN enrolls again: the closed account is not active.
    const again = EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn: request.encryptedUserData.identifyingData.ssn } } });
    expect((await acme.post<View>('/v1/programs/sandbox/enrollments', again)).body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
  });

  it('SERVICE.md: unblock retried automatically up to 3 times — 2 failures: the third retry unblocks the card; 3 failures: manual gate, underReview, card still blocked, no fourth retry', async () => {
    const outcome = async (failures: number) => {
      const enrolled = await enroll();
      const id = enrolled.account.accountIdentifier;
      await act(id, 'fraudBlock');
      const removed = await care().delete<View>(path(id, 'fraudBlock'), { sandboxUnblockFailures: failures });
      expect(removed.status).toBe(200);
      const view = await waitForView(id, (v) => v.paymentInstruments[0].status !== 'blocked' || v.account.kycPendingGate === 'manual');
      // Longer than one more retry delay and a poll: a fourth attempt, if scheduled, would be recorded by now.
      await new Promise((resolve) => setTimeout(resolve, Math.max(...UNBLOCK_DELAYS) + 1_000));
      const attempts = (await auditOf(id)).filter((e) => e.action.startsWith('cardUnblock.')).map((e) => [e.action, e.detail.attempt]);
      return { view, attempts, final: (await care().get<View>(path(id))).body };
    };

    const two = await outcome(2);
    expect(two.attempts).toEqual([
      ['cardUnblock.failed', 1],
      ['cardUnblock.failed', 2],
      ['cardUnblock.succeeded', 3],
    ]);
    expect(two.final.paymentInstruments.map((c) => c.status)).toEqual(['active']);
    expect(two.final.account).toMatchObject({ status: 'normal', statusReason: null, kycPendingGate: 'none' });

    const three = await outcome(3);
    expect(three.attempts).toEqual([
      ['cardUnblock.failed', 1],
      ['cardUnblock.failed', 2],
      ['cardUnblock.exhausted', 3],
    ]);
    expect(three.final.paymentInstruments.map((c) => c.status)).toEqual(['blocked']);
    expect(three.final.account).toMatchObject({ status: 'normal', statusReason: 'underReview', kycPendingGate: 'manual' });
  });

  it('KYC refer: the gate clears to normal with the card activated', async () => {
    const enrolled = await enroll(EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer' } }));
    const id = enrolled.account.accountIdentifier;
    expect(enrolled.account).toMatchObject({ status: 'pending', kycPendingGate: 'manual', statusReason: 'underReview' });
    expect(enrolled.paymentInstruments.map((c) => c.status)).toEqual(['inactive']);
    const cleared = await act(id, 'kycGate/clear');
    expect(cleared.account).toMatchObject({ status: 'normal', kycPendingGate: 'none', statusReason: null });
    expect(cleared.paymentInstruments.map((c) => c.status)).toEqual(['active']);
    await expectNotApplicable(id, 'kycGate/clear');
    await eventWith(id, 'accountUpdated', { status: 'normal', kycPendingGate: 'none', reason: 'care.kycGateClear' });
    await eventWith(id, 'cardUpdated', { status: 'active', previousStatus: 'inactive' });
  });

  it('OFAC hold → clear → normal with card and accountCycleDay; the original requestId replays the completed enrollment', async () => {
    const request = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } });
    const held = await app.client('acme').post<View>('/v1/programs/sandbox/enrollments', request);
    expect(held.status).toBe(200);
    expect(held.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    expect(held.body.account).toMatchObject({ status: 'pending', statusReason: 'ofacReview', accountCycleDay: null });
    expect(held.body.paymentInstruments).toEqual([]);
    const id = held.body.account.accountIdentifier;
    await expectNotApplicable(id, 'lock');
    await expectNotApplicable(id, 'kycGate/clear');

    const cleared = await act(id, 'ofacClear');
    const day = Math.min(new Date().getUTCDate(), 28);
    expect(cleared.account).toMatchObject({ accountIdentifier: id, status: 'normal', statusReason: null, kycPendingGate: 'none' });
    expect([day, Math.min(day + 1, 28), 1]).toContain(cleared.account.accountCycleDay);
    expect(cleared.paymentInstruments).toEqual([expect.objectContaining({ status: 'active', embossedName: 'JOSE OFACHOLD' })]);
    await expectNotApplicable(id, 'ofacClear');

    await eventWith(id, 'accountUpdated', { status: 'normal', accountCycleDay: cleared.account.accountCycleDay });
    await eventWith(id, 'cardUpdated', { paymentIdentifier: cleared.paymentInstruments[0].paymentIdentifier, status: 'active' });

    const replay = await app.client('acme').post<View>('/v1/programs/sandbox/enrollments', request);
    expect(replay.status).toBe(200);
    expect(replay.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    expect(replay.body.account).toMatchObject({ accountIdentifier: id, status: 'normal', accountCycleDay: cleared.account.accountCycleDay });
    expect(replay.body.paymentInstruments.map((c) => c.paymentIdentifier)).toEqual(cleared.paymentInstruments.map((c) => c.paymentIdentifier));
    expect((await auditOf(id)).map((e) => [e.action, e.before.statusReason, e.after.status])).toEqual([['ofacClear', 'ofacReview', 'normal']]);
  });

  it('ofacClear of an account that is not held, racing the identical retry of its enrollment: the retry completes it, the clearance answers 409/5/390, no deadlock', async () => {
    for (let round = 0; round < 4; round++) {
      const request = EnrollmentRequestFactory.build();
      const first = await app.client('acme').post<View>('/v1/programs/sandbox/enrollments', request, { headers: { 'x-sandbox-fault': 'billCycle' } });
      const id = first.body.account.accountIdentifier;
      // The retry holds the enrollment's limit keys for its phases and locks the account row in each;
      // the clearance must take the same locks in the same order (keys, then the row).
      const [retried, cleared] = await Promise.all([
        app.client('acme').post<View>('/v1/programs/sandbox/enrollments', request, { noRetry: true }),
        care().post<View>(path(id, 'ofacClear'), {}, { noRetry: true }),
      ]);
      expect({ round, status: retried.status, detail: retried.body.responseDetails[0] }).toMatchObject({ round, status: 200, detail: { code: 0, subCode: 0 } });
      expect(retried.body.account).toMatchObject({ status: 'normal' });
      expect({ round, status: cleared.status, detail: cleared.body.responseDetails[0] }).toMatchObject({
        round,
        status: 409,
        detail: { code: 5, subCode: 390 },
      });
    }
  });

  it('replaces a card with the current names: old card replaced, new one active; a replaced card cannot be replaced again', async () => {
    const enrolled = await enroll();
    const id = enrolled.account.accountIdentifier;
    const old = enrolled.paymentInstruments[0].paymentIdentifier;
    const replaced = await act(id, `paymentInstruments/${old}/replace`);
    expect(replaced.paymentInstruments).toHaveLength(2);
    const [previous, next] = replaced.paymentInstruments;
    expect(previous).toMatchObject({ paymentIdentifier: old, status: 'replaced' });
    expect(next).toMatchObject({ status: 'active', embossedName: 'JOSE NUNEZ' });
    expect(next.paymentIdentifier).not.toBe(old);
    const again = await care().post(path(id, `paymentInstruments/${old}/replace`));
    expect(again.status).toBe(409);
    expect(again.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 390 });
    await eventWith(id, 'cardUpdated', { paymentIdentifier: old, status: 'replaced', previousStatus: 'active', replacedBy: next.paymentIdentifier });
    await eventWith(id, 'cardUpdated', { paymentIdentifier: next.paymentIdentifier, status: 'active', replaces: old });
    const [entry] = (await auditOf(id)).filter((e) => e.action === 'paymentInstrument.replace');
    expect(entry.detail).toEqual({ replacedPaymentIdentifier: old, newPaymentIdentifier: next.paymentIdentifier });
  });

  it('a replacement card of a business account carries the business name as changed since enrollment', async () => {
    const enrolled = await enroll(EnrollmentRequestFactory.business());
    const id = enrolled.account.accountIdentifier;
    expect(enrolled.paymentInstruments[0].embossedBusinessName).toBe('NUNEZ TACOS & CO');
    const changed = await app.client('acme').put(`/v1/programs/sandbox/accounts/${id}/businessProfile`, { businessData: { businessName: 'Peña Ñandú Café' } });
    expect(changed.status).toBe(200);
    const replaced = await act(id, `paymentInstruments/${enrolled.paymentInstruments[0].paymentIdentifier}/replace`);
    expect(replaced.paymentInstruments[1]).toMatchObject({ status: 'active', embossedBusinessName: 'PENA NANDU CAFE', embossedName: 'JOSE NUNEZ' });
  });

  it('never puts plaintext of encrypted data in a webhook', async () => {
    await receiver.waitFor((all) => all.length > 0);
    const secrets = ['Núñez', 'NUNEZ', 'José', 'JOSE', '1990-04-01', 'Main St', 'Austin', 'jose@example.com', 'new@example.com'];
    for (const webhook of receiver.received) {
      for (const secret of secrets) expect(webhook.body).not.toContain(secret);
    }
  });
});
