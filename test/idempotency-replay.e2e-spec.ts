import { ValidBodyPipe } from '../src/common/validation/valid-body';
import { CallRunner } from '../src/modules/locking/call-runner';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { PARTNERS, startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

interface Answer {
  status: number;
  text: string;
  /** The answer's Content-Type. */
  type: string | null;
  replayed: string | null;
  body: { responseDetails: Array<{ code: number; subCode: number }>; account?: { accountIdentifier: string } };
}

/**
 * The idempotency replay interceptor on POST enrollments: a byte-identical retry of a stored final
 * answer is answered after the guard and before the body pipe and the call runner; every other
 * request goes the whole way and gets the answer it always got.
 */
describe('Idempotency replay of a byte-identical enrollment retry (e2e)', () => {
  let app: TestApp;
  let pipeRuns: jest.SpyInstance;
  let calls: jest.SpyInstance;

  beforeAll(async () => {
    app = await startTestApp('idempotency_replay');
    pipeRuns = jest.spyOn(ValidBodyPipe.prototype, 'transform');
    calls = jest.spyOn(CallRunner.prototype, 'idempotent');
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await app.close();
  });

  async function tokenOf(partner: keyof typeof PARTNERS = 'acme', scope?: string): Promise<string> {
    const basic = Buffer.from(`${PARTNERS[partner].clientId}:${PARTNERS[partner].clientSecret}`).toString('base64');
    const response = await fetch(`${app.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: scope ? `grant_type=client_credentials&scope=${scope}` : 'grant_type=client_credentials',
    });
    return ((await response.json()) as { access_token: string }).access_token;
  }

  async function post(bearer: string, body: string, path = ENROLL): Promise<Answer> {
    const response = await fetch(`${app.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    return {
      status: response.status,
      text,
      type: response.headers.get('content-type'),
      replayed: response.headers.get('idempotent-replayed'),
      body: JSON.parse(text) as Answer['body'],
    };
  }

  /** Which parts of the pipeline a step ran: the body pipe and the call runner's idempotent call. */
  async function counted<T>(step: () => Promise<T>): Promise<{ result: T; pipe: number; runner: number }> {
    pipeRuns.mockClear();
    calls.mockClear();
    const result = await step();
    return { result, pipe: pipeRuns.mock.calls.length, runner: calls.mock.calls.length };
  }

  /** A completed enrollment and the token that made it (cached by the guard since). */
  async function enrolled(): Promise<{ bearer: string; body: string; first: Answer }> {
    const bearer = await tokenOf();
    const body = JSON.stringify(EnrollmentRequestFactory.build());
    const first = await post(bearer, body);
    expect({ status: first.status, type: first.type }).toEqual({ status: 200, type: 'application/json; charset=utf-8' });
    expect(first.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    return { bearer, body, first };
  }

  it('answers the identical retry byte for byte from the stored answer, without the body pipe or a call of its own', async () => {
    const { bearer, body, first } = await enrolled();
    for (let i = 0; i < 2; i++) {
      const { result, pipe, runner } = await counted(() => post(bearer, body));
      expect({ status: result.status, type: result.type, replayed: result.replayed, text: result.text }).toEqual({
        status: 200,
        type: 'application/json; charset=utf-8',
        replayed: 'true',
        text: first.text,
      });
      expect({ pipe, runner }).toEqual({ pipe: 0, runner: 0 });
    }
  });

  it('answers 50 simultaneous identical retries alike, byte for byte, and stores nothing more', async () => {
    const { bearer, body, first } = await enrolled();
    const db = await app.db();
    try {
      const requestId = (JSON.parse(body) as { requestId: string }).requestId;
      const rows = async () =>
        (
          await db.query(
            `select (select count(*) from accounts where request_id = $1)::int as accounts,
                    (select count(*) from idempotency_keys where request_id = $1)::int as keys,
                    (select count(*) from outbox_events)::int as events`,
            [requestId],
          )
        ).rows[0] as Record<string, number>;
      const before = await rows();
      const { result, pipe, runner } = await counted(() => Promise.all(Array.from({ length: 50 }, () => post(bearer, body))));
      expect(new Set(result.map((answer) => `${answer.status} ${answer.replayed} ${answer.text}`))).toEqual(new Set([`200 true ${first.text}`]));
      expect({ pipe, runner }).toEqual({ pipe: 0, runner: 0 });
      expect(await rows()).toEqual(before);
      expect(before).toMatchObject({ accounts: 1, keys: 1 });
    } finally {
      await db.end();
    }
  });

  it('replays the identical retry sent with another token of the same partner', async () => {
    const { body, first } = await enrolled();
    const fresh = await tokenOf();
    const { result, pipe, runner } = await counted(() => post(fresh, body));
    expect({ status: result.status, replayed: result.replayed, text: result.text }).toEqual({ status: 200, replayed: 'true', text: first.text });
    expect({ pipe, runner }).toEqual({ pipe: 0, runner: 0 });
  });

  it('sends other bytes for the same payload (another key order) the whole way, where the runner replays them, every time', async () => {
    const { bearer, body, first } = await enrolled();
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(parsed).reverse()));
    for (let i = 0; i < 2; i++) {
      const { result, pipe, runner } = await counted(() => post(bearer, reordered));
      expect({ status: result.status, type: result.type, replayed: result.replayed, text: result.text }).toEqual({
        status: 200,
        type: 'application/json; charset=utf-8',
        replayed: 'true',
        text: first.text,
      });
      expect({ pipe, runner }).toEqual({ pipe: 1, runner: 1 });
    }
  });

  it('sends the retry of an answer stored without a request digest (before the interceptor) the whole way, where it replays', async () => {
    const { bearer, body, first } = await enrolled();
    const db = await app.db();
    try {
      const requestId = (JSON.parse(body) as { requestId: string }).requestId;
      await db.query(`update idempotency_keys set request_digest = null where request_id = $1`, [requestId]);
    } finally {
      await db.end();
    }
    const { result, pipe, runner } = await counted(() => post(bearer, body));
    expect({ status: result.status, replayed: result.replayed, text: result.text }).toEqual({ status: 200, replayed: 'true', text: first.text });
    expect({ pipe, runner }).toEqual({ pipe: 1, runner: 1 });
  });

  it('answers every refusal of the guard as before, even for the identical retry of a stored answer', async () => {
    const { bearer, body, first } = await enrolled();
    // A token without the enrollments scope, cached by a first refusal: still 403/403/1.
    const usersOnly = await tokenOf('acme', 'users');
    for (let i = 0; i < 2; i++) {
      const refused = await post(usersOnly, body);
      expect({ status: refused.status, replayed: refused.replayed, detail: refused.body.responseDetails[0] }).toMatchObject({
        status: 403,
        replayed: null,
        detail: { code: 403, subCode: 1 },
      });
    }
    // A program that is not the partner's: 403/403/2.
    const otherProgram = await post(bearer, body, '/v1/programs/other/enrollments');
    expect({ status: otherProgram.status, replayed: otherProgram.replayed, detail: otherProgram.body.responseDetails[0] }).toMatchObject({
      status: 403,
      replayed: null,
      detail: { code: 403, subCode: 2 },
    });
    // A token in the query string besides the header: 401.
    const inQuery = await post(bearer, body, `${ENROLL}?access_token=${bearer}`);
    expect({ status: inQuery.status, replayed: inQuery.replayed }).toEqual({ status: 401, replayed: null });
    // Another partner sending acme's identical body and requestId gets its own answer (here its SSN limit's
    // decline), stored and replayed under its own key: never acme's.
    const acmeAccount = first.body.account?.accountIdentifier as string;
    const globex = await tokenOf('globex');
    const theirs = [await post(globex, body), await post(globex, body)];
    expect(theirs.map((answer) => [answer.status, answer.replayed])).toEqual([
      [200, null],
      [200, 'true'],
    ]);
    expect(theirs[1]?.text).toBe(theirs[0]?.text);
    expect(theirs[0]?.text).not.toContain(acmeAccount);
  });

  it('answers ?validateOnly=true as a validation, not as the replay', async () => {
    const { bearer, body } = await enrolled();
    const { result, pipe } = await counted(() => post(bearer, body, `${ENROLL}?validateOnly=true`));
    expect({ status: result.status, replayed: result.replayed, details: result.body.responseDetails }).toEqual({
      status: 200,
      replayed: null,
      details: [{ code: 0, subCode: 0, description: 'Valid' }],
    });
    expect(pipe).toBe(1);
  });

  it('answers a changed payload under the same requestId with 422, on the whole way', async () => {
    const { bearer, body } = await enrolled();
    const changed = JSON.parse(body) as { encryptedUserData: { firstName: string } };
    changed.encryptedUserData.firstName = 'Othername';
    const first = await post(bearer, JSON.stringify(changed));
    // No answer is stored for these bytes: the runner, under the locks, answers 422 each time.
    const again = await counted(() => post(bearer, JSON.stringify(changed)));
    for (const answer of [first, again.result]) {
      expect({ status: answer.status, replayed: answer.replayed, detail: answer.body.responseDetails[0] }).toMatchObject({
        status: 422,
        replayed: null,
        detail: { code: 422 },
      });
    }
    expect({ pipe: again.pipe, runner: again.runner }).toEqual({ pipe: 1, runner: 1 });
  });

  it('documents Idempotent-Replayed as a header of the 200 answer, not as a request parameter', async () => {
    const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
      paths: Record<
        string,
        { post: { parameters?: Array<{ name: string }>; responses: Record<string, { headers?: Record<string, unknown>; content?: unknown }> } }
      >;
    };
    const enroll = document.paths['/v1/programs/{programCode}/enrollments']?.post;
    expect(enroll?.responses['200']?.headers).toHaveProperty('Idempotent-Replayed');
    expect(enroll?.responses['200']?.content).toBeDefined();
    expect((enroll?.parameters ?? []).map((parameter) => parameter.name)).not.toContain('Idempotent-Replayed');
  });
});
