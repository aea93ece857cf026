import type { ApiBody } from '../client/enrollment-client';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

/**
 * SERVICE.md: the card unblock after a fraud block's removal is "retried automatically up to 3 times,
 * all within 15 minutes". A care lock during the run pauses it; these delays leave room to see the
 * pause end inside the window (care.e2e-spec.ts holds the lock past it, with short delays).
 */
const UNBLOCK_DELAYS = [300, 300, 6_000];
const WINDOW_MS = UNBLOCK_DELAYS.reduce((a, b) => a + b, 0);
/** The queue's poll (0.5 s) and this machine's slack. */
const SLACK_MS = 2_000;

interface View extends ApiBody {
  account: { accountIdentifier: string; status: string; statusReason: string | null; kycPendingGate: string };
  paymentInstruments: Array<{ paymentIdentifier: string; status: string }>;
}
interface AuditEntry {
  action: string;
  at: string;
  detail: Record<string, unknown>;
}

describe('Card unblock window (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('unblockwindow', { env: { UNBLOCK_RETRY_DELAYS_MS: UNBLOCK_DELAYS.join(',') } });
  });

  afterAll(async () => {
    await app.close();
  });

  const care = () => app.client('care');
  const path = (accountId: string, op = '') => `/v1/care/accounts/${accountId}${op ? `/${op}` : ''}`;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function act(accountId: string, op: string, body?: unknown, method: 'post' | 'delete' = 'post'): Promise<View> {
    const res = await care()[method]<View>(path(accountId, op), body);
    expect(res.status).toBe(200);
    return res.body;
  }

  async function auditOf(accountId: string): Promise<AuditEntry[]> {
    const res = await care().get<{ auditTrail: AuditEntry[] } & ApiBody>(path(accountId, 'audit'));
    expect(res.status).toBe(200);
    return res.body.auditTrail;
  }

  async function waitForAudit(accountId: string, action: string): Promise<AuditEntry[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const trail = await auditOf(accountId);
      if (trail.some((e) => e.action === action)) return trail;
      if (Date.now() > deadline) throw new Error(`no ${action} for ${accountId}: ${JSON.stringify(trail.map((e) => e.action))}`);
      await sleep(100);
    }
  }

  /** An enrolled account, fraud-blocked, its block removed (with `failures` sandbox failures) and locked by care at once. */
  async function removedThenLocked(failures: number): Promise<string> {
    const enrolled = await app.client('acme').post<View>('/v1/programs/sandbox/enrollments', EnrollmentRequestFactory.build());
    expect(enrolled.status).toBe(200);
    const id = enrolled.body.account.accountIdentifier;
    await act(id, 'fraudBlock');
    await act(id, 'fraudBlock', { sandboxUnblockFailures: failures }, 'delete');
    await act(id, 'lock');
    return id;
  }

  const at = (trail: AuditEntry[], action: string) => Date.parse((trail.find((e) => e.action === action) as AuditEntry).at);

  it('a lock lifted inside the window: the paused attempt runs after the unlock and unblocks the card, inside the window', async () => {
    const id = await removedThenLocked(0);
    // Attempt 1 was due 300 ms after the removal: it has found the lock and waits.
    await sleep(2_000);
    expect((await care().get<View>(path(id))).body.paymentInstruments).toEqual([expect.objectContaining({ status: 'blocked' })]);
    await act(id, 'unlock');
    const trail = await waitForAudit(id, 'cardUnblock.succeeded');
    const removed = at(trail, 'fraudBlock.remove');
    expect(at(trail, 'cardUnblock.succeeded')).toBeGreaterThan(at(trail, 'unlock'));
    expect(at(trail, 'cardUnblock.succeeded') - removed).toBeLessThan(WINDOW_MS + SLACK_MS);
    const view = (await care().get<View>(path(id))).body;
    expect(view.account).toMatchObject({ status: 'normal', statusReason: null, kycPendingGate: 'none' });
    expect(view.paymentInstruments).toEqual([expect.objectContaining({ status: 'active' })]);
  });

  it('retries left after a pause are brought forward to the window’s end, never past it: the third attempt exhausts the run inside the window', async () => {
    const id = await removedThenLocked(3);
    await sleep(3_000);
    await act(id, 'unlock');
    // Attempts 1 and 2 fail just after the unlock; attempt 3's own delay (6 s) would end about 9.6 s after the removal.
    const trail = await waitForAudit(id, 'cardUnblock.exhausted');
    const removed = at(trail, 'fraudBlock.remove');
    const attempts = trail.filter((e) => e.action.startsWith('cardUnblock.'));
    expect(attempts.map((e) => [e.action, e.detail.attempt])).toEqual([
      ['cardUnblock.failed', 1],
      ['cardUnblock.failed', 2],
      ['cardUnblock.exhausted', 3],
    ]);
    for (const attempt of attempts) expect(Date.parse(attempt.at) - removed).toBeLessThan(WINDOW_MS + SLACK_MS);
    const view = (await care().get<View>(path(id))).body;
    expect(view.account).toMatchObject({ status: 'normal', statusReason: 'underReview', kycPendingGate: 'manual' });
    expect(view.paymentInstruments).toEqual([expect.objectContaining({ status: 'blocked' })]);
  });
});
