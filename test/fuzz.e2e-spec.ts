import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Client } from 'pg';
import { EnrollmentRequestFactory, uniqueItin, uniquePhone, validBusinessData } from './support/enrollment-factory';
import { adversarialJson, deepNesting, describePath, fromJs, invalidUtf8, mixedSpanish, mutate, mutation, pathsOf, toJson } from './support/fuzz-arbitraries';
import { Detail, isCatalogued, tableDigest } from './support/hardening';
import { startTestApp, TestApp } from './support/test-app';

interface Answer {
  status: number;
  /** The care console's own pages (HTML under /care, CONTRACT section 14), which carry no envelope. */
  consolePage: boolean;
  text: string;
  body: { responseDetails?: Detail[]; error?: string; [key: string]: unknown } | undefined;
}

interface Target {
  name: string;
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  care?: boolean;
  /** A valid body to mutate. */
  valid: () => unknown;
}

/** fast-check's report with long values cut, so a failure stays readable; FUZZ_SEED replays a run. */
const SETTINGS: fc.Parameters<unknown> = {
  seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647),
  endOnFailure: true,
  asyncReporter: async (details) => {
    if (!details.failed) return;
    const message = fc.defaultReportMessage(details) ?? 'property failed';
    throw new Error(message.replace(/([^\s"]{40})[^\s"]{200,}/g, '$1…').slice(0, 4000));
  },
};

describe('Fuzzing every endpoint: bodies, paths and headers (e2e, fast-check)', () => {
  let app: TestApp;
  let db: Client;
  let tokens: { acme: string; care: string };
  let targets: Target[];

  async function send(
    method: string,
    path: string,
    options: { body?: string | Uint8Array; headers?: Record<string, string>; token?: string | null } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(options.headers ?? {}) };
    const token = options.token === undefined ? tokens.acme : options.token;
    if (token && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) headers.authorization = `Bearer ${token}`;
    const url = new URL(`${app.baseUrl}${path}`);
    const response = await fetch(url, { method, headers, body: options.body });
    const text = await response.text();
    // The path as sent: URL parsing resolves dot segments, `%2e%2e` included (/%2e%2e/care/x is /care/x).
    const consolePage = /^\/care(\/|$)/.test(url.pathname) && (response.headers.get('content-type') ?? '').startsWith('text/html');
    let body: Answer['body'];
    try {
      body = JSON.parse(text) as Answer['body'];
    } catch {
      body = undefined;
    }
    return { status: response.status, consolePage, text, body };
  }

  /** Never a 500; every error or decline names catalogued codes, the first one with this HTTP status. */
  function expectCatalogued(answer: Answer, what: string): void {
    const context = `${what} -> ${answer.status} ${answer.text.slice(0, 300)}`;
    if (answer.status >= 500) throw new Error(`server error: ${context}`);
    if (/\bat .+\.(js|ts):\d+|QueryFailedError|select .* from /i.test(answer.text)) throw new Error(`internals leaked: ${context}`);
    // A console page (its 404 page, its sign-in after a redirect) is HTML, not the partner envelope.
    if (answer.consolePage) return;
    const details = answer.body?.responseDetails;
    // A success (or a 2xx that is not an envelope, such as /metrics) has nothing to check here.
    if (answer.status < 300 && (details === undefined || details[0]?.code === 0)) return;
    if (!Array.isArray(details) || details.length === 0) throw new Error(`no responseDetails: ${context}`);
    if (!isCatalogued(details[0], answer.status)) throw new Error(`first detail not in the catalogue for HTTP ${answer.status}: ${context}`);
    for (const detail of details) if (!isCatalogued(detail)) throw new Error(`detail not in the catalogue: ${context}`);
  }

  /** Sends one request; on a 4xx the stored rows must be exactly as before. */
  async function probe(method: string, path: string, options: Parameters<typeof send>[2], what: string): Promise<Answer> {
    const before = await tableDigest(db);
    const answer = await send(method, path, options);
    expectCatalogued(answer, what);
    if (answer.status >= 400 && answer.status < 500) {
      const after = await tableDigest(db);
      const changed = Object.keys(after).filter((t) => after[t] !== before[t]);
      if (changed.length > 0) throw new Error(`${what} answered ${answer.status} but changed ${changed.join(', ')}`);
    }
    return answer;
  }

  async function enroll(request: Record<string, unknown>): Promise<{ accountId: string; userId: string }> {
    const res = await send('POST', '/v1/programs/sandbox/enrollments', { body: JSON.stringify(request) });
    const body = res.body as { account?: { accountIdentifier: string }; user?: { userIdentifier: string } };
    if (res.status !== 200 || !body?.account || !body.user) throw new Error(`seed enrollment failed: ${res.status} ${res.text.slice(0, 300)}`);
    return { accountId: body.account.accountIdentifier, userId: body.user.userIdentifier };
  }

  beforeAll(async () => {
    // Jobs off: no background worker writes rows between two digests.
    app = await startTestApp('fuzz', { env: { JOBS_ENABLED: 'false' } });
    db = await app.db();
    tokens = { acme: await app.client('acme').accessToken(), care: await app.client('care').accessToken() };
    const empty = await tableDigest(db);
    const consumer = await enroll(EnrollmentRequestFactory.build());
    // Control: the digest sees this file's tables and a successful call changes it.
    const seeded = await tableDigest(db);
    expect(Object.keys(seeded)).toEqual(expect.arrayContaining(['accounts', 'users', 'idempotency_keys', 'outbox_events']));
    expect(seeded.accounts).not.toBe(empty.accounts);
    const business = await enroll(EnrollmentRequestFactory.business());
    const careTarget = await enroll(EnrollmentRequestFactory.build());
    const idNumber = `MX${randomBytes(5).toString('hex').toUpperCase()}`;
    targets = [
      { name: 'enrollment', method: 'POST', path: '/v1/programs/sandbox/enrollments', valid: () => EnrollmentRequestFactory.build() },
      { name: 'business enrollment', method: 'POST', path: '/v1/programs/sandbox/enrollments', valid: () => EnrollmentRequestFactory.business() },
      {
        name: 'scan capture',
        method: 'POST',
        path: '/v1/kycGates/scanCapture',
        valid: () => ({ programCode: 'sandbox', idType: 'matricula', idNumber, issuingCountry: 'MX', frontImage: randomBytes(24).toString('base64') }),
      },
      {
        name: 'user update',
        method: 'PUT',
        path: `/v1/programs/sandbox/accounts/${consumer.accountId}/users/${consumer.userId}`,
        valid: () => ({
          encryptedUserData: {
            address: { type: 'home', addressLine1: '12 Elm St', city: 'Austin', state: 'TX', zipCode: '78701' },
            email: { emailAddress: 'fuzz@example.com' },
            phoneNumber: { phoneType: 'mobile', number: uniquePhone() },
          },
        }),
      },
      {
        name: 'business profile',
        method: 'PUT',
        path: `/v1/programs/sandbox/accounts/${business.accountId}/businessProfile`,
        valid: () => ({ businessData: validBusinessData() }),
      },
      { name: 'identity', method: 'POST', path: `/v1/accounts/${consumer.accountId}/users/${consumer.userId}/identity`, valid: () => ({ itin: uniqueItin() }) },
      { name: 'test webhook', method: 'POST', path: '/v1/webhooks/test', valid: () => ({ eventType: 'accountUpdated' }) },
      {
        name: 'care unblock',
        method: 'DELETE',
        path: `/v1/care/accounts/${careTarget.accountId}/fraudBlock`,
        care: true,
        valid: () => ({ sandboxUnblockFailures: 1 }),
      },
      {
        name: 'care replace card',
        method: 'POST',
        path: `/v1/care/accounts/${careTarget.accountId}/paymentInstruments/x/replace`,
        care: true,
        valid: () => ({}),
      },
    ];
  });

  afterAll(async () => {
    await db?.end();
    await app?.close();
  });

  describe('what earlier runs found, pinned', () => {
    it('JSON nested 5,000 deep: 400/100/1 before validation (it overflowed the validation pipe: 500)', async () => {
      const body = `{"requestId":"deep","encryptedUserData":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
      const answer = await probe('POST', '/v1/programs/sandbox/enrollments', { body }, 'deep');
      expect(answer.status).toBe(400);
      expect(answer.body?.responseDetails?.[0]).toMatchObject({ code: 100, subCode: 1 });
    });

    it('an undecodable URL gets the envelope, 404/404/0 (Fastify answered its own body)', async () => {
      const answer = await probe('GET', '/v1/programs/%/enrollments', {}, 'bad url');
      expect(answer.status).toBe(404);
      expect(answer.body?.responseDetails?.[0]).toMatchObject({ code: 404, subCode: 0 });
    });

    it('phoneNumbers as an array of arrays: a catalogued 400 (it reached the cipher: 500)', async () => {
      const request = EnrollmentRequestFactory.build();
      request.encryptedUserData.phoneNumbers = [request.encryptedUserData.phoneNumbers];
      const answer = await probe('POST', '/v1/programs/sandbox/enrollments', { body: JSON.stringify(request) }, 'nested phones');
      expect(answer.status).toBe(400);
      expect(answer.body?.responseDetails?.[0]).toMatchObject({ code: 100, subCode: 5 });
    });
  });

  const target = () => fc.nat().map((i) => targets[i % targets.length]);
  const tokenFor = (t: Target) => (t.care ? tokens.care : tokens.acme);

  it('adversarial JSON bodies on every endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(target(), adversarialJson, async (t, node) => {
        await probe(t.method, t.path, { body: toJson(node), token: tokenFor(t) }, `${t.name} ${toJson(node).slice(0, 200)}`);
      }),
      { ...SETTINGS, numRuns: 250 },
    );
  });

  it('valid bodies with one field deleted, retyped, wrapped or given a prototype-pollution sibling', async () => {
    await fc.assert(
      fc.asyncProperty(target(), fc.nat(), mutation, async (t, at, m) => {
        const tree = fromJs(t.valid());
        const paths = pathsOf(tree);
        const where = paths.length ? paths[at % paths.length] : [];
        const text = toJson(mutate(tree, where, m));
        const change = m.kind === 'replace' || m.kind === 'pollute' ? `${m.kind} ${toJson(m.with).slice(0, 80)}` : m.kind;
        await probe(t.method, t.path, { body: text, token: tokenFor(t) }, `${t.name}: ${change} at ${describePath(tree, where)}`);
      }),
      { ...SETTINGS, numRuns: 250 },
    );
  });

  it('deep nesting and bodies around the 64 KiB limit', async () => {
    const sized = fc.integer({ min: 60 * 1024, max: 70 * 1024 }).map((n) => JSON.stringify({ ...EnrollmentRequestFactory.build(), pad: 'é'.repeat(n / 2) }));
    await fc.assert(
      fc.asyncProperty(
        target(),
        fc.oneof(
          deepNesting.map((d) => d.text),
          sized,
        ),
        async (t, text) => {
          await probe(t.method, t.path, { body: text, token: tokenFor(t) }, `${t.name} ${text.length} chars ${text.slice(0, 60)}`);
        },
      ),
      { ...SETTINGS, numRuns: 60 },
    );
  });

  it('invalid UTF-8 bytes inside string values', async () => {
    await fc.assert(
      fc.asyncProperty(target(), fc.nat(), invalidUtf8, async (t, at, bytes) => {
        const text = JSON.stringify(t.valid());
        const quotes = [...text.matchAll(/":"/g)].map((m) => (m.index ?? 0) + 3);
        const cut = quotes.length ? quotes[at % quotes.length] : 1;
        const body = Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.from(bytes), Buffer.from(text.slice(cut))]);
        await probe(t.method, t.path, { body, token: tokenFor(t) }, `${t.name} bytes ${Buffer.from(bytes).toString('hex')} at ${cut}`);
      }),
      { ...SETTINGS, numRuns: 120 },
    );
  });

  it('Spanish letters mixing NFC and NFD: never a 500, and an accepted name embosses as plain A-Z', async () => {
    await fc.assert(
      fc.asyncProperty(mixedSpanish(1, 10), mixedSpanish(2, 12), mixedSpanish(2, 10), async (first, last, city) => {
        const request = EnrollmentRequestFactory.build({
          encryptedUserData: {
            firstName: first,
            lastName: last,
            addresses: [{ type: 'home', isDefault: true, addressLine1: `1 ${city} St`, city, state: 'TX', zipCode: '78701' }],
          },
        });
        const answer = await probe(
          'POST',
          '/v1/programs/sandbox/enrollments',
          { body: JSON.stringify(request) },
          `names ${JSON.stringify([first, last, city])}`,
        );
        if (answer.status === 200 && answer.body?.responseDetails?.[0]?.code === 0) {
          const cards = answer.body.paymentInstruments as Array<{ embossedName: string }>;
          for (const card of cards) expect(card.embossedName).toMatch(/^[A-Z][A-Z '.-]*$/);
        }
      }),
      { ...SETTINGS, numRuns: 60 },
    );
  });

  it('random paths and methods under and beside /v1', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'v1',
        'programs',
        'sandbox',
        'other',
        'accounts',
        'users',
        'enrollments',
        'businessProfile',
        'identity',
        'care',
        'webhooks',
        'events',
        '..',
        '.',
        '%2e%2e',
        '%00',
        '%ff',
        '%',
        'null',
        '00000000-0000-4000-8000-000000000000',
      ),
      fc.string({ maxLength: 20 }).map(encodeURIComponent),
      fc.string({ unit: 'binary', maxLength: 8 }).map(encodeURIComponent),
      fc.integer({ min: 200, max: 3000 }).map((n) => 'a'.repeat(n)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
        fc.array(segment, { minLength: 1, maxLength: 7 }),
        fc.boolean(),
        async (method, segments, withBody) => {
          const path = `/${segments.join('/')}`;
          await probe(method, path, { body: withBody && method !== 'GET' ? '{}' : undefined }, `${method} ${path.slice(0, 200)}`);
        },
      ),
      { ...SETTINGS, numRuns: 200 },
    );
  });

  it('random and hostile headers', async () => {
    const printable = fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));
    const headers = fc.record(
      {
        'content-type': fc.oneof(
          fc.constantFrom(
            'application/json',
            'application/json; charset=latin1',
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/jose',
            '*/*',
            '',
          ),
          printable,
        ),
        authorization: fc.oneof(fc.constantFrom('Bearer', 'Bearer ', 'Basic YWNtZTphY21l', 'bearer x.y.z', `Bearer ${'a'.repeat(4000)}`), printable),
        'x-request-id': printable,
        'x-sandbox-fault': fc.oneof(fc.constantFrom('billCycle', 'after:started', 'after:', 'BILLCYCLE', 'billCycle,billCycle'), printable),
        accept: printable,
        'content-encoding': fc.constantFrom('gzip', 'br', 'identity', 'x'),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(target(), headers, async (t, h) => {
        const body = JSON.stringify(t.valid());
        const answer = await send(t.method, t.path, { body, headers: h, token: h.authorization === undefined ? tokenFor(t) : null });
        expectCatalogued(answer, `${t.name} headers ${JSON.stringify(h).slice(0, 300)}`);
      }),
      { ...SETTINGS, numRuns: 150 },
    );
  });

  it('the token endpoint: random forms and bodies are OAuth errors, never a 500', async () => {
    const form = fc.dictionary(
      fc.constantFrom('grant_type', 'client_id', 'client_secret', 'scope', 'username', '__proto__', 'x'),
      fc.string({ maxLength: 30 }),
      { maxKeys: 5 },
    );
    await fc.assert(
      fc.asyncProperty(form, fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain'), async (fields, type) => {
        const body = type === 'application/json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
        const answer = await send('POST', '/oauth2/token', { body, headers: { 'content-type': type }, token: null });
        const what = `token ${type} ${body.slice(0, 200)} -> ${answer.status} ${answer.text.slice(0, 200)}`;
        if (answer.status >= 500) throw new Error(`server error: ${what}`);
        if (answer.status === 200) return;
        if (answer.body?.error) expect(['invalid_request', 'invalid_client', 'unsupported_grant_type', 'invalid_scope']).toContain(answer.body.error);
        else expectCatalogued(answer, what);
      }),
      { ...SETTINGS, numRuns: 100 },
    );
  });
});
