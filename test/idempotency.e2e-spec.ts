import { CompactEncrypt, importJWK, JWK } from 'jose';
import { IdempotencyStore } from '../src/modules/idempotency/idempotency.store';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { PARTNERS, startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

interface EnrollmentBody {
  requestId: string;
  responseDetails: Array<{ code: number; subCode: number }>;
  account: { accountIdentifier: string; status: string; accountCycleDay: number | null };
  user: { userIdentifier: string };
  paymentInstruments: Array<{ paymentIdentifier: string; embossedName: string }>;
}

/** Reverses key order at every level: the same payload, spelled differently. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .reverse()
        .map(([k, v]) => [k, reordered(v)]),
    );
  }
  return value;
}

async function sealForService(app: TestApp, data: unknown): Promise<string> {
  const jwks = (await (await fetch(`${app.baseUrl}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
  const enc = jwks.keys.find((k) => k.use === 'enc') as JWK;
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(data)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM' })
    .encrypt(await importJWK(enc, 'ECDH-ES'));
}

async function countRowsForSsnRequest(app: TestApp, requestId: string): Promise<Record<string, number>> {
  const db = await app.db();
  try {
    const { rows } = await db.query(
      `select (select count(*) from accounts where request_id = $1)::int as accounts,
              (select count(*) from users u join accounts a on a.id = u.account_id where a.request_id = $1)::int as users,
              (select count(*) from purses p join accounts a on a.id = p.account_id where a.request_id = $1)::int as purses,
              (select count(*) from payment_instruments c join accounts a on a.id = c.account_id where a.request_id = $1)::int as cards`,
      [requestId],
    );
    return rows[0] as Record<string, number>;
  } finally {
    await db.end();
  }
}

describe('Idempotency (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('idempotency');
  });

  afterAll(async () => {
    await app.close();
  });

  it('stores the answer encrypted at rest, bound to its row: no embossed name or account number in the table, the replay still byte for byte', async () => {
    const client = app.client();
    const request = EnrollmentRequestFactory.build();
    const first = await client.post<EnrollmentBody>(ENROLL, request);
    expect(first.status).toBe(200);
    const db = await app.db();
    try {
      const { rows } = await db.query(`select response_body from idempotency_keys where request_id = $1`, [request.requestId]);
      const stored = rows[0].response_body as string;
      expect(stored).toMatch(/^v1\./);
      // Exact values of the answer (a name with its space, the account's uuid, a JSON key with its quotes): none can
      // turn up by chance in base64url, as a few letters matched case-insensitively can.
      const plaintexts = [first.body.paymentInstruments[0]?.embossedName, first.body.account.accountIdentifier, '"accountIdentifier"'];
      for (const plaintext of plaintexts) {
        expect(plaintext).toEqual(expect.any(String));
        expect(stored).not.toContain(plaintext);
      }
    } finally {
      await db.end();
    }
    const replay = await client.post<EnrollmentBody>(ENROLL, request);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('replays the stored answer byte for byte, with the same identifiers', async () => {
    const client = app.client();
    const request = EnrollmentRequestFactory.build();
    const first = await fetch(`${app.baseUrl}${ENROLL}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await client.accessToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    const firstText = await first.text();
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await fetch(`${app.baseUrl}${ENROLL}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await client.accessToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.text()).toBe(firstText);
    const body = JSON.parse(firstText) as EnrollmentBody;
    expect(body.requestId).toBe(request.requestId);
    expect(second.headers.get('x-request-id')).toBe(request.requestId);
    expect(await countRowsForSsnRequest(app, request.requestId)).toEqual({ accounts: 1, users: 1, purses: 1, cards: 1 });
  });

  it('treats reordered keys as the same payload', async () => {
    const client = app.client();
    const request = EnrollmentRequestFactory.build();
    const first = await client.post<EnrollmentBody>(ENROLL, request);
    const again = await client.post<EnrollmentBody>(ENROLL, reordered(request));
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.account.accountIdentifier).toBe(first.body.account.accountIdentifier);
  });

  it('refuses a key named like a prototype property (constructor, prototype) at any depth as an unknown property, 400/100/2 naming it, storing nothing', async () => {
    const client = app.client();
    const send = async (body: unknown) => {
      const res = await fetch(`${app.baseUrl}${ENROLL}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await client.accessToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as EnrollmentBody };
    };
    const top = EnrollmentRequestFactory.build();
    const refusedTop = await send({ ...top, constructor: 1 });
    expect({ status: refusedTop.status, details: refusedTop.body.responseDetails }).toMatchObject({
      status: 400,
      details: [{ code: 100, subCode: 2, description: 'property constructor should not exist' }],
    });
    const nested = EnrollmentRequestFactory.build() as { requestId: string; encryptedUserData: { addresses: Array<Record<string, unknown>> } };
    nested.encryptedUserData.addresses[0] = { ...nested.encryptedUserData.addresses[0], prototype: { x: 1 } };
    const refusedNested = await send(nested);
    expect({ status: refusedNested.status, details: refusedNested.body.responseDetails }).toMatchObject({
      status: 400,
      details: [{ code: 100, subCode: 2, description: 'property encryptedUserData.addresses[0].prototype should not exist' }],
    });
    // Every name Object.prototype carries: class-validator's whitelist took them as declared properties.
    for (const name of ['toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'toLocaleString', '__defineGetter__']) {
      const other = EnrollmentRequestFactory.build() as { encryptedUserData: { addresses: Array<Record<string, unknown>> } };
      other.encryptedUserData.addresses[0] = { ...other.encryptedUserData.addresses[0], [name]: 1 };
      const refused = await send(other);
      expect({ name, status: refused.status, details: refused.body.responseDetails }).toMatchObject({
        name,
        status: 400,
        details: [{ code: 100, subCode: 2, description: `property encryptedUserData.addresses[0].${name} should not exist` }],
      });
    }
    // Nothing was stored under either requestId: the same requestId without the key is a first attempt.
    const db = await app.db();
    try {
      const { rowCount } = await db.query(`select 1 from idempotency_keys where request_id = any($1)`, [[top.requestId, nested.requestId]]);
      expect(rowCount).toBe(0);
    } finally {
      await db.end();
    }
    const clean = await send(top);
    expect({ status: clean.status, detail: clean.body.responseDetails[0] }).toMatchObject({ status: 200, detail: { code: 0 } });
  });

  it('treats a re-encrypted JWE of the same data as the same payload', async () => {
    const client = app.client('secure');
    const request = EnrollmentRequestFactory.build();
    const sealedOnce = { ...request, encryptedUserData: await sealForService(app, request.encryptedUserData) };
    const sealedTwice = { ...request, encryptedUserData: await sealForService(app, reordered(request.encryptedUserData)) };
    expect(sealedOnce.encryptedUserData).not.toBe(sealedTwice.encryptedUserData);
    const first = await client.post<EnrollmentBody>(ENROLL, sealedOnce);
    const again = await client.post<EnrollmentBody>(ENROLL, sealedTwice);
    expect(first.status).toBe(200);
    expect(first.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.account.accountIdentifier).toBe(first.body.account.accountIdentifier);
  });

  it('refuses a changed payload under the same requestId with 422 and creates nothing', async () => {
    const client = app.client();
    const request = EnrollmentRequestFactory.build();
    expect((await client.post(ENROLL, request)).status).toBe(200);
    const changed = { ...request, encryptedUserData: { ...request.encryptedUserData, firstName: 'Josefa' } };
    const res = await client.post(ENROLL, changed);
    expect(res.status).toBe(422);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 422, subCode: 0 });
    expect(await countRowsForSsnRequest(app, request.requestId)).toEqual({ accounts: 1, users: 1, purses: 1, cards: 1 });
  });

  it('validates before looking the requestId up: a reused requestId with an invalid payload answers 400, not 422', async () => {
    const client = app.client();
    const request = EnrollmentRequestFactory.build();
    expect((await client.post(ENROLL, request)).status).toBe(200);
    const invalid = { ...request, encryptedUserData: { ...request.encryptedUserData, lastName: 'N' } };
    const res = await client.post(ENROLL, invalid);
    expect(res.status).toBe(400);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 400, subCode: 502 });
  });

  it('does not store validation failures: a corrected request under the same requestId succeeds', async () => {
    const client = app.client();
    const request = EnrollmentRequestFactory.build();
    const invalid = {
      ...request,
      encryptedUserData: { ...request.encryptedUserData, identifyingData: { dateOfBirth: '04/01/1990', ssn: request.encryptedUserData.identifyingData.ssn } },
    };
    const bad = await client.post(ENROLL, invalid);
    expect(bad.status).toBe(400);
    expect(bad.body.responseDetails[0]).toMatchObject({ code: 700 });
    const good = await client.post(ENROLL, request);
    expect(good.status).toBe(200);
    expect(good.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
  });

  it('keeps requestIds apart per partner', async () => {
    const request = EnrollmentRequestFactory.build();
    const acme = await app.client('acme').post<EnrollmentBody>(ENROLL, request);
    const other = await app.client('globex').post<EnrollmentBody>(ENROLL, {
      ...request,
      encryptedUserData: {
        ...request.encryptedUserData,
        identifyingData: { dateOfBirth: '1990-04-01', ssn: EnrollmentRequestFactory.build().encryptedUserData.identifyingData.ssn },
      },
    });
    expect(acme.status).toBe(200);
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.body.account.accountIdentifier).not.toBe(acme.body.account.accountIdentifier);
  });

  it('X-Sandbox-Fault: unavailable answers 503/503/2 with Retry-After before doing anything; the client retries it 3 times', async () => {
    const client = app.client();
    const request = EnrollmentRequestFactory.build();
    const res = await client.post(ENROLL, request, { headers: { 'x-sandbox-fault': 'unavailable' } });
    expect(res.status).toBe(503);
    expect(res.retries).toBe(3);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 503, subCode: 2 });
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await countRowsForSsnRequest(app, request.requestId)).toEqual({ accounts: 0, users: 0, purses: 0, cards: 0 });
    const db = await app.db();
    try {
      const { rowCount } = await db.query(`select 1 from idempotency_keys where request_id = $1`, [request.requestId]);
      expect(rowCount).toBe(0);
    } finally {
      await db.end();
    }
    const later = await client.post<EnrollmentBody>(ENROLL, request);
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });

  it('X-Sandbox-Fault: unavailable answers 503/503/2 whatever else is wrong with the call (a body that is not JSON, too large, of another type)', async () => {
    const client = app.client();
    for (const [rawBody, contentType] of [
      ['{"requestId": "x",', 'application/json'],
      [`{"pad":"${'x'.repeat(70 * 1024)}"}`, 'application/json'],
      ['hello', 'text/plain'],
    ]) {
      const res = await client.post(ENROLL, undefined, { rawBody, headers: { 'x-sandbox-fault': 'unavailable', 'content-type': contentType }, noRetry: true });
      expect({ contentType, status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({
        contentType,
        status: 503,
        detail: { code: 503, subCode: 2 },
      });
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    // The token endpoint too: no body, JSON, text, a broken form, a declared length over the limit.
    for (const [body, contentType] of [
      [undefined, undefined],
      ['{"grant_type":"client_credentials"}', 'application/json'],
      ['hello', 'text/plain'],
      ['grant_type=client_credentials&grant_type=x', 'application/x-www-form-urlencoded'],
      [`pad=${'x'.repeat(70 * 1024)}`, 'application/x-www-form-urlencoded'],
    ]) {
      const res = await fetch(`${app.baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'x-sandbox-fault': 'unavailable', ...(contentType ? { 'content-type': contentType } : {}) },
        body,
      });
      const answer = (await res.json()) as { responseDetails?: Array<{ code: number; subCode: number }> };
      expect({ contentType, status: res.status, detail: answer.responseDetails?.[0] }).toMatchObject({
        contentType,
        status: 503,
        detail: { code: 503, subCode: 2 },
      });
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
  });

  it('X-Sandbox-Fault with a fault the sandbox does not know answers 400/100/5 naming the header and the known faults, and enrolls no one', async () => {
    const client = app.client();
    for (const header of ['after:foo', 'billcycle', 'after:kycDecided, nope']) {
      const request = EnrollmentRequestFactory.build();
      const res = await client.post(ENROLL, request, { headers: { 'x-sandbox-fault': header }, noRetry: true });
      expect({ header, status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({
        header,
        status: 400,
        detail: { code: 100, subCode: 5, field: 'X-Sandbox-Fault' },
      });
      expect(res.body.responseDetails[0].description).toContain('after:instrumentIssued');
      expect(await countRowsForSsnRequest(app, request.requestId)).toEqual({ accounts: 0, users: 0, purses: 0, cards: 0 });
    }
    // Outside the partner API's routes the header changes nothing but `unavailable`: the token endpoint keeps its RFC 6749 answers, an unknown route its 404.
    const token = await fetch(`${app.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-sandbox-fault': 'nope' },
      body: `grant_type=client_credentials&client_id=${PARTNERS.acme.clientId}&client_secret=${PARTNERS.acme.clientSecret}`,
    });
    expect(token.status).toBe(200);
    expect((await fetch(`${app.baseUrl}/v1/nowhere`, { headers: { 'x-sandbox-fault': 'nope' } })).status).toBe(404);
    expect((await fetch(`${app.baseUrl}/health/live`, { headers: { 'x-sandbox-fault': 'nope' } })).status).toBe(200);
    // Every fault the documents name is known.
    for (const header of ['billCycle', 'after:accountWritten', 'after:kycDecided, billCycle']) {
      const res = await client.post(ENROLL, EnrollmentRequestFactory.build(), { headers: { 'x-sandbox-fault': header }, noRetry: true });
      expect({ header, status: res.status }).not.toMatchObject({ status: 400 });
    }
  });

  it('keeps past retention the requestId of an enrollment that opened an account (its identical retry still replays), and purges one that opened none', async () => {
    const opened = EnrollmentRequestFactory.build();
    const first = await app.client().post<EnrollmentBody>(ENROLL, opened);
    expect(first.status).toBe(200);
    const ssn = (opened.encryptedUserData as { identifyingData: { ssn: string } }).identifyingData.ssn;
    const declined = EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn, dateOfBirth: '1970-01-01' } } });
    const decline = await app.client().post<EnrollmentBody>(ENROLL, declined);
    expect(decline.body.responseDetails[0]).toMatchObject({ code: 2, subCode: 60 });
    expect(decline.body).not.toHaveProperty('account');
    const db = await app.db();
    try {
      const ids = [opened.requestId, declined.requestId];
      await db.query(`update idempotency_keys set expires_at = now() - interval '1 minute' where request_id = any($1)`, [ids]);
      expect(await app.app.get(IdempotencyStore).purgeExpired()).toBeGreaterThanOrEqual(1);
      const { rows } = await db.query<{ request_id: string }>(`select request_id from idempotency_keys where request_id = any($1)`, [ids]);
      expect(rows.map((r) => r.request_id)).toEqual([opened.requestId]);
    } finally {
      await db.end();
    }
    // Days later: the account's requestId still answers as it did, not a second first attempt.
    const again = await app.client().post<EnrollmentBody>(ENROLL, opened);
    expect({ status: again.status, account: again.body.account?.accountIdentifier }).toEqual({ status: 200, account: first.body.account.accountIdentifier });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});
