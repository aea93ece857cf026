import * as path from 'node:path';
import type { Client } from 'pg';
import { lockKey, LockNames } from '../src/infrastructure/database/lock.service';
import { EnrollmentRequestFactory, uniqueRequestId } from './support/enrollment-factory';
import { accountIdOfRequest, linked, startTestApp, TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

const ENROLL = '/v1/programs/sandbox/enrollments';
const status = (requestId: string, programCode = 'sandbox') => `/v1/programs/${programCode}/enrollments/requests/${requestId}`;

interface StatusBody {
  requestId: string;
  responseDetails: Array<{ code: number; subCode: number; description: string }>;
  request: { requestId: string; state: string; createdDateTime: string; updatedDateTime: string };
  answer: Record<string, unknown> | null;
}

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('GET .../enrollments/requests/{requestId} (e2e, CONTRACT section 11)', () => {
  let app: TestApp;
  let db: Client;

  beforeAll(async () => {
    // Screening on, so that a name of the SDN fixture list is held too, beside the sandbox's Ofachold.
    app = await startTestApp('request-status', { env: { OFAC_LIST_DIR: path.join(__dirname, 'fixtures', 'ofac') } });
    db = await app.db();
  });

  afterAll(async () => {
    await db.end();
    await app.close();
  });

  async function stateOf(requestId: string) {
    const res = await app.client().get<StatusBody>(status(requestId));
    expect(res.status).toBe(200);
    expect(res.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    expect(res.body.request).toMatchObject({ requestId, createdDateTime: expect.stringMatching(ISO_Z), updatedDateTime: expect.stringMatching(ISO_Z) });
    return res.body;
  }

  it('completed: the answer is the stored one, exactly what the identical retry replays', async () => {
    const request = EnrollmentRequestFactory.build();
    await app.client().post(ENROLL, request);
    const body = await stateOf(request.requestId);
    expect(body.request.state).toBe('completed');
    const replay = await app.client().post(ENROLL, request);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(body.answer).toEqual(replay.body);
  });

  it('declined: a limit decline is stored and shown', async () => {
    const first = EnrollmentRequestFactory.build();
    await app.client().post(ENROLL, first);
    const second = EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn: first.encryptedUserData.identifyingData.ssn } } });
    const declined = await app.client().post(ENROLL, second);
    expect(declined.body.responseDetails[0]).toMatchObject({ code: 2, subCode: 60 });
    const body = await stateOf(second.requestId);
    expect(body.request.state).toBe('declined');
    expect(body.answer).toEqual(declined.body);
  });

  it('held: OFAC review, no answer stored; once care clears it, completed with its final answer stored, which the identical retry replays', async () => {
    const request = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } });
    const held = await app.client().post(ENROLL, request);
    expect(held.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    const body = await stateOf(request.requestId);
    expect(body).toMatchObject({ request: { state: 'held' }, answer: null });
    // Until care clears the hold, the identical retry is held again: nothing completes it but the clearance.
    const heldAgain = await app.client().post(ENROLL, request);
    expect(heldAgain.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    expect(heldAgain.headers.get('idempotent-replayed')).toBeNull();
    expect(await stateOf(request.requestId)).toMatchObject({ request: { state: 'held' }, answer: null });

    const accountId = (held.body.account as { accountIdentifier: string }).accountIdentifier;
    expect((await app.client('care').post(`/v1/care/accounts/${accountId}/ofacClear`, {})).status).toBe(200);
    const cleared = await stateOf(request.requestId);
    // CONTRACT section 11: completed means a final answer is stored, the one the identical retry replays.
    expect(cleared).toMatchObject({ request: { state: 'completed' }, answer: { requestId: request.requestId, responseDetails: [{ code: 0, subCode: 0 }] } });
    expect(cleared.answer).toMatchObject({ account: { accountIdentifier: accountId, status: 'normal' } });
    expect(Date.parse(cleared.request.updatedDateTime)).toBeGreaterThanOrEqual(Date.parse(body.request.updatedDateTime));
    const retried = await app.client().post(ENROLL, request);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(cleared.answer);
  });

  /** Care closes the account: the request reads completed, its answer the closed account, which the identical retry replays. */
  async function expectClosedAnswer(request: ReturnType<typeof EnrollmentRequestFactory.build>, accountId: string): Promise<void> {
    expect((await app.client('care').post(`/v1/care/accounts/${accountId}/close`, {})).status).toBe(200);
    const closed = await stateOf(request.requestId);
    expect(closed).toMatchObject({
      request: { state: 'completed' },
      answer: { requestId: request.requestId, responseDetails: [{ code: 0, subCode: 0 }], account: { accountIdentifier: accountId, status: 'closed' } },
    });
    const retried = await app.client().post(ENROLL, request);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(closed.answer);
  }

  it('closed by care before it completed (held, or stopped short): completed, its answer the closed account, stored, which the identical retry replays', async () => {
    const cases: Array<[ReturnType<typeof EnrollmentRequestFactory.build>, Record<string, string>]> = [
      [EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } }), {}],
      [EnrollmentRequestFactory.build(), { 'x-sandbox-fault': 'billCycle' }],
    ];
    for (const [request, headers] of cases) {
      const first = await app.client().post(ENROLL, request, { headers });
      const accountId = (first.body.account as { accountIdentifier: string }).accountIdentifier;
      expect((await stateOf(request.requestId)).answer).toBeNull();
      await expectClosedAnswer(request, accountId);
    }
  });

  it('closed by care after it finished but before its answer was stored: completed too, its answer the closed account', async () => {
    const request = EnrollmentRequestFactory.build();
    expect((await app.client().post(ENROLL, request, { headers: { 'x-sandbox-fault': 'after:finished' }, noRetry: true })).status).toBe(503);
    await expectClosedAnswer(request, await accountIdOfRequest(app, request.requestId));
  });

  it("closed by care with no answer stored (closed before care's close stored one): the identical retry answers the closed account and stores it", async () => {
    const request = EnrollmentRequestFactory.build();
    const first = await app.client().post(ENROLL, request, { headers: { 'x-sandbox-fault': 'billCycle' } });
    const accountId = (first.body.account as { accountIdentifier: string }).accountIdentifier;
    expect((await app.client('care').post(`/v1/care/accounts/${accountId}/close`, {})).status).toBe(200);
    // As an account closed before the close stored the answer was left: no answer, its recovery point short of finished.
    await db.query(`update idempotency_keys set response_status = null, response_body = null where request_id = $1`, [request.requestId]);
    await db.query(`update enrollments set recovery_point = 'kycDecided' where account_id = $1`, [accountId]);
    expect(await stateOf(request.requestId)).toMatchObject({ request: { state: 'incomplete' }, answer: null });

    const retried = await app.client().post(ENROLL, request);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body).toMatchObject({ responseDetails: [{ code: 0, subCode: 0 }], account: { accountIdentifier: accountId, status: 'closed' } });
    expect(await stateOf(request.requestId)).toMatchObject({ request: { state: 'completed' }, answer: retried.body });
    const replayed = await app.client().post(ENROLL, request);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(retried.body);
  });

  it('held: a name on the SDN list (screening), like the sandbox name', async () => {
    const request = EnrollmentRequestFactory.build({ encryptedUserData: { firstName: 'Ignatius', lastName: 'Thornwick' } });
    const held = await app.client().post(ENROLL, request);
    expect(held.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    expect(await stateOf(request.requestId)).toMatchObject({ request: { state: 'held' }, answer: null });
  });

  it('incomplete: stopped short of its bill cycle, or interrupted after a recovery point; inProgress while a call holds its lock', async () => {
    const billCycle = EnrollmentRequestFactory.build();
    await app.client().post(ENROLL, billCycle, { headers: { 'x-sandbox-fault': 'billCycle' } });
    expect(await stateOf(billCycle.requestId)).toMatchObject({ request: { state: 'incomplete' }, answer: null });

    const interrupted = EnrollmentRequestFactory.build();
    const res = await app.client().post(ENROLL, interrupted, { headers: { 'x-sandbox-fault': 'after:accountWritten' }, noRetry: true });
    expect(res.status).toBe(503);
    expect(await stateOf(interrupted.requestId)).toMatchObject({ request: { state: 'incomplete' }, answer: null });

    // Another session holding the requestId's lock is a call with this requestId running now.
    const key = lockKey(LockNames.requestId('acme', 'sandbox', interrupted.requestId));
    await db.query('select pg_advisory_lock($1::bigint)', [key]);
    try {
      expect((await stateOf(interrupted.requestId)).request.state).toBe('inProgress');
    } finally {
      await db.query('select pg_advisory_unlock($1::bigint)', [key]);
    }
    const retried = await app.client().post(ENROLL, interrupted);
    expect(retried.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect((await stateOf(interrupted.requestId)).request.state).toBe('completed');
  });

  it('incomplete, not completed, when the enrollment finished but its answer was never stored; the identical retry stores it', async () => {
    const request = EnrollmentRequestFactory.build();
    // Interrupted after its last recovery point, before the answer was stored (a crash at that instant).
    const res = await app.client().post(ENROLL, request, { headers: { 'x-sandbox-fault': 'after:finished' }, noRetry: true });
    expect(res.status).toBe(503);
    // CONTRACT section 11: completed means a final answer is stored; here none is, and the retry resumes.
    expect(await stateOf(request.requestId)).toMatchObject({ request: { state: 'incomplete' }, answer: null });
    const retried = await app.client().post(ENROLL, request);
    expect(retried.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(await stateOf(request.requestId)).toMatchObject({ request: { state: 'completed' }, answer: retried.body });
  });

  it('inProgress of a first attempt: its times are when the call began, the same on every poll, and completed follows on from them', async () => {
    const request = EnrollmentRequestFactory.build();
    // The first attempt runs up to its limit counts, then waits on this lock: in flight, nothing committed.
    const holder = await app.db();
    await holder.query('begin');
    await holder.query('lock table account_limit_keys in access exclusive mode');
    let answered: Promise<unknown> = Promise.resolve();
    try {
      const sentAt = Date.now();
      answered = app.client().post(ENROLL, request, { noRetry: true });
      let first: StatusBody['request'] | undefined;
      await waitUntil(async () => {
        const res = await app.client().get<StatusBody>(status(request.requestId));
        if (res.status === 200) first = res.body.request;
        return first !== undefined;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const second = (await stateOf(request.requestId)).request;
      expect(first).toMatchObject({ state: 'inProgress' });
      expect(second).toEqual(first);
      expect(Date.parse(first!.createdDateTime)).toBeGreaterThanOrEqual(sentAt - 1000);
      expect(first!.updatedDateTime).toBe(first!.createdDateTime);
      await holder.query('commit');
      await answered;
      const done = (await stateOf(request.requestId)).request;
      expect(done).toMatchObject({ state: 'completed', createdDateTime: first!.createdDateTime });
      // The answer was stored after the wait, so after the poll that saw the call still running.
      expect(Date.parse(done.updatedDateTime)).toBeGreaterThanOrEqual(Date.parse(first!.createdDateTime) + 300);
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
      await answered;
    }
  });

  it("unknown, malformed, another program's or another partner's requestId: 404/10/0; validation failures and validate-only calls are never recorded", async () => {
    const request = EnrollmentRequestFactory.build();
    await app.client().post(ENROLL, request);
    const notFound = linked({ code: 10, subCode: 0, description: 'Request Not Found' });
    const foreign = await app.client('globex').get<StatusBody>(status(request.requestId));
    expect({ status: foreign.status, details: foreign.body.responseDetails }).toEqual({ status: 404, details: [notFound] });
    const otherProgram = await app.client().get<StatusBody>(status(request.requestId, 'lite'));
    expect({ status: otherProgram.status, details: otherProgram.body.responseDetails }).toEqual({ status: 404, details: [notFound] });
    for (const id of [uniqueRequestId(), 'bad%20id', 'x'.repeat(65)]) {
      const res = await app.client().get<StatusBody>(status(id));
      expect({ id, status: res.status, details: res.body.responseDetails }).toEqual({ id, status: 404, details: [notFound] });
    }
    const invalid = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'X' } });
    expect((await app.client().post(ENROLL, invalid)).status).toBe(400);
    const dry = EnrollmentRequestFactory.build();
    expect((await app.client().post(`${ENROLL}?validateOnly=true`, dry)).status).toBe(200);
    for (const id of [invalid.requestId, dry.requestId]) expect((await app.client().get(status(id))).status).toBe(404);
  });

  it('needs the enrollments scope and the program', async () => {
    const scoped = await app.client('acme', { scope: 'users' }).get(status(uniqueRequestId()));
    expect({ status: scoped.status, detail: scoped.body.responseDetails[0] }).toMatchObject({ status: 403, detail: { code: 403, subCode: 1 } });
    const program = await app.client().get(status(uniqueRequestId(), 'other'));
    expect({ status: program.status, detail: program.body.responseDetails[0] }).toMatchObject({ status: 403, detail: { code: 403, subCode: 2 } });
  });
});
