import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, importJWK, JWK, JWTPayload, CryptoKey, SignJWT } from 'jose';
import { Client } from 'pg';
import { ApiBody, ApiResponse, EnrollmentClient } from '../client/enrollment-client';
import { tableDigest } from './support/hardening';
import { EnrollmentRequestFactory, personalUserData, uniqueItin, uniquePhone, uniqueSsn, validBusinessData } from './support/enrollment-factory';
import { PARTNERS, startTestApp, TestApp, TEST_PUBLIC_URL, linked } from './support/test-app';

interface Enrolled {
  accountId: string;
  userId: string;
}

const detail = (body: ApiBody) => body.responseDetails[0];
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('Security: BOLA, token forgery, plaintext in answers and logs (e2e)', () => {
  const logLines: string[] = [];
  const responses: string[] = [];
  let app: TestApp;
  let acme: EnrollmentClient;
  let globex: EnrollmentClient;
  let db: Client;

  /** Every answer of this file is kept for the plaintext scan. */
  function keep<T extends ApiResponse>(res: T): T {
    responses.push(`${JSON.stringify([...res.headers.entries()])}\n${JSON.stringify(res.body)}`);
    return res;
  }

  async function enroll(request: Record<string, unknown>, client = acme, programCode = 'sandbox'): Promise<Enrolled> {
    const res = keep(await client.post(`/v1/programs/${programCode}/enrollments`, request));
    if (res.status !== 200 || detail(res.body).code !== 0) throw new Error(`enrollment failed: ${res.status} ${JSON.stringify(res.body.responseDetails)}`);
    const body = res.body as ApiBody & { account: { accountIdentifier: string }; user: { userIdentifier: string } };
    return { accountId: body.account.accountIdentifier, userId: body.user.userIdentifier };
  }

  async function scanCapture(idNumber: string, client = acme): Promise<string> {
    const res = keep(
      await client.post('/v1/kycGates/scanCapture', {
        programCode: 'sandbox',
        idType: 'matricula',
        idNumber,
        issuingCountry: 'MX',
        frontImage: randomBytes(48).toString('base64'),
      }),
    );
    if (res.status !== 200) throw new Error(`scan capture failed: ${res.status} ${JSON.stringify(res.body.responseDetails)}`);
    return res.body.onboardingID as string;
  }

  beforeAll(async () => {
    // Jobs off: no background worker writes rows between two digests.
    app = await startTestApp('security', { env: { LOG_LEVEL: 'debug', JOBS_ENABLED: 'false' }, logLines });
    acme = app.client('acme');
    globex = app.client('globex');
    db = await app.db();
  });

  afterAll(async () => {
    await db?.end();
    await app?.close();
  });

  describe('BOLA: another partner cannot reach an account by any path', () => {
    let consumer: Enrolled;
    let business: Enrolled;
    let other: Enrolled;

    beforeAll(async () => {
      const idNumber = `MX${randomBytes(5).toString('hex').toUpperCase()}`;
      const onboardingID = await scanCapture(idNumber);
      consumer = await enroll(
        EnrollmentRequestFactory.build({ onboardingID, encryptedUserData: { identifyingData: { ssn: undefined, matriculaId: idNumber } } }),
      );
      business = await enroll(EnrollmentRequestFactory.business());
      other = await enroll(EnrollmentRequestFactory.build());
    });

    type Attempt = { label: string; send: (client: EnrollmentClient, account: string, user: string) => Promise<ApiResponse> };
    const update = {
      encryptedUserData: {
        email: { emailAddress: 'hijack@example.com' },
        address: { type: 'home', addressLine1: '1 Hijack Rd', city: 'Austin', state: 'TX', zipCode: '78701' },
      },
    };
    const attemptsIn = (program: string): Attempt[] => [
      { label: `GET account (${program})`, send: (c, a) => c.get(`/v1/programs/${program}/enrollments/accounts/${a}`) },
      { label: `GET users (${program})`, send: (c, a) => c.get(`/v1/programs/${program}/accounts/${a}/users`) },
      { label: `PUT user (${program})`, send: (c, a, u) => c.put(`/v1/programs/${program}/accounts/${a}/users/${u}`, update) },
      { label: `GET businessProfile (${program})`, send: (c, a) => c.get(`/v1/programs/${program}/accounts/${a}/businessProfile`) },
      {
        label: `PUT businessProfile (${program})`,
        send: (c, a) => c.put(`/v1/programs/${program}/accounts/${a}/businessProfile`, { businessData: { businessName: 'Hijacked Name LLC' } }),
      },
    ];
    const identity: Attempt = { label: 'POST identity', send: (c, a, u) => c.post(`/v1/accounts/${a}/users/${u}/identity`, { itin: uniqueItin() }) };

    /** What the same call answers for an account that does not exist. */
    async function missingAnswer(attempt: Attempt, client: EnrollmentClient): Promise<ApiResponse> {
      return attempt.send(client, MISSING, randomUUID());
    }

    it('globex, in the program it shares with acme and in its own, gets 404/10/0 exactly as for a missing account, and nothing changes', async () => {
      const before = await tableDigest(db);
      const attempts = [...attemptsIn('sandbox'), ...attemptsIn('other'), identity];
      for (const attempt of attempts) {
        const target = attempt.label.includes('businessProfile') ? business : consumer;
        const res = keep(await attempt.send(globex, target.accountId, target.userId));
        const missing = await missingAnswer(attempt, globex);
        expect({ attempt: attempt.label, status: res.status, details: res.body.responseDetails }).toEqual({
          attempt: attempt.label,
          status: 404,
          details: [linked({ code: 10, subCode: 0, description: 'Account Not Found' })],
        });
        expect(res.body.responseDetails).toEqual(missing.body.responseDetails);
        expect(Object.keys(res.body).sort()).toEqual(Object.keys(missing.body).sort());
      }
      expect(await tableDigest(db)).toEqual(before);
    });

    it('acme itself: an account through another of its programs, or a user of another account, is missing too', async () => {
      const before = await tableDigest(db);
      for (const attempt of attemptsIn('lite')) {
        const target = attempt.label.includes('businessProfile') ? business : consumer;
        const res = keep(await attempt.send(acme, target.accountId, target.userId));
        expect({ attempt: attempt.label, status: res.status, detail: detail(res.body) }).toMatchObject({
          attempt: attempt.label,
          status: 404,
          detail: { code: 10, subCode: 0 },
        });
      }
      for (const attempt of [...attemptsIn('sandbox').filter((a) => a.label.startsWith('PUT user')), identity]) {
        const res = keep(await attempt.send(acme, consumer.accountId, other.userId));
        expect({ attempt: attempt.label, status: res.status, detail: detail(res.body) }).toMatchObject({
          attempt: attempt.label,
          status: 404,
          detail: { code: 10, subCode: 0 },
        });
      }
      expect(await tableDigest(db)).toEqual(before);
    });

    it('the owner still reaches its accounts (the refusals above are not a broken route)', async () => {
      const owner = keep(await acme.get(`/v1/programs/sandbox/enrollments/accounts/${consumer.accountId}`));
      expect(owner.status).toBe(200);
      expect((owner.body.account as { accountIdentifier: string }).accountIdentifier).toBe(consumer.accountId);
      const profile = keep(await acme.get(`/v1/programs/sandbox/accounts/${business.accountId}/businessProfile`));
      expect(profile.status).toBe(200);
      expect((profile.body.businessData as { businessName: string }).businessName).not.toBe('Hijacked Name LLC');
    });

    it('a partner token never opens the care operations (403/1), whatever the account', async () => {
      for (const action of ['lock', 'close', 'fraudBlock', 'ofacClear']) {
        const res = keep(await acme.post(`/v1/care/accounts/${consumer.accountId}/${action}`, {}));
        expect({ action, status: res.status, detail: detail(res.body) }).toMatchObject({ action, status: 403, detail: { code: 403, subCode: 1 } });
      }
    });
  });

  describe('tokens signed with the service key itself are refused unless every claim is right', () => {
    let signingKey: CryptoKey;
    let kid: string;
    let claims: JWTPayload;
    const probe = `/v1/programs/sandbox/enrollments/accounts/${MISSING}`;

    beforeAll(async () => {
      // The sandbox key file the app under test loaded (DATA_DIR is the run folder).
      const material = JSON.parse(fs.readFileSync(path.join(process.env.TEST_RUN_DIR as string, 'keys.json'), 'utf8')) as { signing: JWK };
      signingKey = (await importJWK(material.signing, 'ES256')) as CryptoKey;
      const real = await acme.accessToken();
      kid = decodeProtectedHeader(real).kid as string;
      claims = decodeJwt(real);
    });

    function sign(payload: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
      return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid, ...header }).sign(signingKey);
    }

    async function call(token: string, pathName = probe): Promise<ApiResponse> {
      return keep(await acme.get(pathName, { anonymous: true, headers: { authorization: `Bearer ${token}` } }));
    }

    function expectRefused(res: ApiResponse, label: string): void {
      expect({ label, status: res.status, detail: detail(res.body) }).toMatchObject({ label, status: 401, detail: { code: 401, subCode: 0 } });
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }

    it('control: the same key and the issued claims are accepted (so each refusal below is about one claim)', async () => {
      const res = await call(await sign({ ...claims, jti: randomUUID() }));
      expect(res.status).toBe(404);
      expect(detail(res.body)).toMatchObject({ code: 10, subCode: 0 });
    });

    it('refuses a wrong audience, a wrong issuer, a future nbf, a wrong typ, a missing jti and an unknown client', async () => {
      const now = Math.floor(Date.now() / 1000);
      const cases: Array<[string, Promise<string>]> = [
        ['audience of another API', sign({ ...claims, aud: `${TEST_PUBLIC_URL}/admin` })],
        ['audience missing', sign({ ...claims, aud: undefined })],
        ['issuer of another service', sign({ ...claims, iss: 'http://evil.test' })],
        ['not valid before an hour from now', sign({ ...claims, nbf: now + 3600 })],
        ['typ JWT instead of at+jwt', sign(claims, { typ: 'JWT' })],
        ['no jti', sign({ ...claims, jti: undefined })],
        ['client not configured', sign({ ...claims, client_id: 'mallory', sub: 'mallory' })],
      ];
      for (const [label, token] of cases) expectRefused(await call(await token), label);
    });

    it('refuses a tampered payload, a stripped signature and an HS256 token keyed with the public JWK', async () => {
      const real = await acme.accessToken();
      const [header, payload, signature] = real.split('.');
      const forgedPayload = Buffer.from(JSON.stringify({ ...decodeJwt(real), client_id: 'globex', sub: 'globex' })).toString('base64url');
      const jwks = await (await fetch(`${app.baseUrl}/.well-known/jwks.json`)).text();
      const confused = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid }).sign(new TextEncoder().encode(jwks));
      const cases: Array<[string, string]> = [
        ['payload swapped, signature kept', `${header}.${forgedPayload}.${signature}`],
        ['signature stripped', `${header}.${payload}.`],
        ['HS256 keyed with the public JWKS', confused],
        ['alg none with the real kid', `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid })).toString('base64url')}.${payload}.`],
      ];
      for (const [label, token] of cases) expectRefused(await call(token), label);
    });

    it('a validly signed token claiming a scope the partner lacks does not open it (scopes are intersected with the config)', async () => {
      const token = await sign({ ...claims, scope: 'care enrollments', jti: randomUUID() });
      const res = await call(token, `/v1/care/accounts/${MISSING}`);
      expect(res.status).toBe(403);
      expect(detail(res.body)).toMatchObject({ code: 403, subCode: 1 });
    });
  });

  describe('no plaintext of encrypted fields in any answer or log line', () => {
    // Distinctive values: a hit in the logs can only come from this test's requests.
    const secrets = {
      firstName: 'Zebulonio',
      lastName: 'Quillfeather',
      ssn: uniqueSsn(),
      dateOfBirth: '1977-03-14',
      email: `zebulonio.${randomBytes(3).toString('hex')}@example.org`,
      phone: uniquePhone(),
      addressLine1: '4321 Marigoldia Lane',
      addressLine2: 'Suite Xanadu',
      city: 'Wolfcreekia',
      updatedAddress: '9876 Thistlewick Rd',
      updatedEmail: `updated.${randomBytes(3).toString('hex')}@example.org`,
      updatedPhone: uniquePhone(),
      matricula: `MX${randomBytes(5).toString('hex').toUpperCase()}`,
      itin: uniqueItin(),
      businessTaxID: `${Math.floor(100_000_000 + Math.random() * 800_000_000)}`,
      businessEmail: `owner.${randomBytes(3).toString('hex')}@example.org`,
    };
    // Business data is plain JSON by contract: the control that the scan below reads answer bodies.
    const businessName = `Paloverde Tacos ${randomBytes(2).toString('hex').toUpperCase()}`;

    function personal(overrides: Record<string, unknown> = {}) {
      return EnrollmentRequestFactory.build({ encryptedUserData: personalUserData(secrets), ...overrides });
    }

    it('drives every operation with those values, including refusals, declines and replays', async () => {
      const request = personal();
      const enrolled = await enroll(request);
      keep(await acme.post('/v1/programs/sandbox/enrollments', request)); // replay
      keep(await acme.post('/v1/programs/sandbox/enrollments', { ...request, currency: 'MXN' })); // 422
      keep(await acme.post('/v1/programs/sandbox/enrollments', personal())); // same SSN: limit decline with the DOB match
      keep(await acme.post('/v1/programs/sandbox/enrollments', personal({ encryptedUserData: { firstName: `${secrets.firstName}<>` } }))); // 640
      keep(await acme.post('/v1/programs/sandbox/enrollments', personal({ encryptedUserData: { email: { emailAddress: `${secrets.email}@@` } } }))); // 750
      keep(
        await acme.post(
          '/v1/programs/sandbox/enrollments',
          personal({ encryptedUserData: { identifyingData: { dateOfBirth: secrets.dateOfBirth, ssn: `${secrets.ssn}0` } } }),
        ),
      ); // 760
      keep(await acme.post('/v1/programs/sandbox/enrollments', personal({ unknownField: secrets.ssn }))); // 100/2
      keep(await acme.get(`/v1/programs/sandbox/enrollments/accounts/${enrolled.accountId}`));
      keep(await acme.get(`/v1/programs/sandbox/accounts/${enrolled.accountId}/users`));
      const userPath = `/v1/programs/sandbox/accounts/${enrolled.accountId}/users/${enrolled.userId}`;
      const updated = keep(
        await acme.put(userPath, {
          encryptedUserData: {
            address: { type: 'home', addressLine1: secrets.updatedAddress, city: secrets.city, state: 'TX', zipCode: '78702' },
            email: { emailAddress: secrets.updatedEmail },
            phoneNumber: { phoneType: 'mobile', number: secrets.updatedPhone },
          },
        }),
      );
      expect(updated.status).toBe(200);
      keep(
        await acme.put(userPath, {
          encryptedUserData: { address: { type: 'home', addressLine1: `${secrets.updatedAddress}<`, city: secrets.city, state: 'TX', zipCode: '78702' } },
        }),
      );

      const onboardingID = await scanCapture(secrets.matricula);
      const matricula = await enroll(
        EnrollmentRequestFactory.build({
          onboardingID,
          encryptedUserData: {
            firstName: secrets.firstName,
            identifyingData: { ssn: undefined, dateOfBirth: secrets.dateOfBirth, matriculaId: secrets.matricula },
          },
        }),
      );
      const identity = keep(await acme.post(`/v1/accounts/${matricula.accountId}/users/${matricula.userId}/identity`, { itin: secrets.itin }));
      expect(identity.status).toBe(200);
      keep(await acme.post(`/v1/accounts/${matricula.accountId}/users/${matricula.userId}/identity`, { itin: `${secrets.itin}x` }));

      const business = await enroll(
        EnrollmentRequestFactory.business({
          encryptedUserData: { businessData: validBusinessData({ businessName, businessTaxID: secrets.businessTaxID, email: secrets.businessEmail }) },
        }),
      );
      const profilePath = `/v1/programs/sandbox/accounts/${business.accountId}/businessProfile`;
      const profile = keep(await acme.get(profilePath));
      expect(profile.status).toBe(200);
      keep(await acme.put(profilePath, { businessData: { businessTaxID: `${secrets.businessTaxID}1` } }));
    });

    it('no answer contains any of them (acme is not configured for encryption)', () => {
      const leaks = Object.entries(secrets).filter(([key, value]) => key !== 'businessEmail' && responses.some((text) => text.includes(value)));
      expect(leaks).toEqual([]);
      expect(responses.some((text) => text.includes(businessName))).toBe(true);
    });

    it('no log line contains any of them, nor a bearer token or client secret, at LOG_LEVEL=debug', async () => {
      const log = logLines.join('');
      // Control: the capture saw this file's requests, so an empty scan cannot pass by accident.
      expect(log).toContain('/v1/programs/sandbox/enrollments');
      expect(log).toContain('/identity');
      const leaks = Object.entries(secrets).filter(([, value]) => log.includes(value));
      expect(leaks).toEqual([]);
      const token = await acme.accessToken();
      expect(log.includes(token.split('.')[2])).toBe(false);
      for (const partner of Object.values(PARTNERS)) expect(log.includes(partner.clientSecret)).toBe(false);
    });
  });
});
