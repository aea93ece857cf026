import { randomBytes, randomUUID } from 'node:crypto';
import { compactDecrypt, importJWK, CryptoKey } from 'jose';
import { ApiBody, EnrollmentClient } from '../client/enrollment-client';
import { EnrollmentRequestFactory, uniqueItin } from './support/enrollment-factory';
import { encryptionPartnerKeys, startTestApp, TestApp, linked } from './support/test-app';

interface Enrolled {
  accountId: string;
  userId: string;
}

const detail = (body: ApiBody) => body.responseDetails[0];
const identityPath = (e: Enrolled) => `/v1/accounts/${e.accountId}/users/${e.userId}/identity`;

describe('Identity: POST /v1/accounts/{accountIdentifier}/users/{userIdentifier}/identity (e2e)', () => {
  let app: TestApp;
  let acme: EnrollmentClient;
  let care: EnrollmentClient;

  async function enroll(
    client: EnrollmentClient,
    request: Record<string, unknown>,
    programCode = 'sandbox',
    headers?: Record<string, string>,
  ): Promise<Enrolled> {
    const res = await client.post(`/v1/programs/${programCode}/enrollments`, request, headers ? { headers } : undefined);
    if (res.status !== 200 || (detail(res.body).code !== 0 && !headers))
      throw new Error(`enrollment failed: ${res.status} ${JSON.stringify(res.body.responseDetails)}`);
    const body = res.body as ApiBody & { account: { accountIdentifier: string }; user: { userIdentifier: string } };
    return { accountId: body.account.accountIdentifier, userId: body.user.userIdentifier };
  }

  /** The Matricula path: a completed scan capture, then the enrollment naming its onboardingID. */
  async function enrollWithMatricula(client: EnrollmentClient = acme, programCode = 'sandbox', headers?: Record<string, string>): Promise<Enrolled> {
    const idNumber = `MX${randomBytes(5).toString('hex').toUpperCase()}`;
    const scan = await client.post('/v1/kycGates/scanCapture', {
      programCode,
      idType: 'matricula',
      idNumber,
      issuingCountry: 'MX',
      frontImage: randomBytes(48).toString('base64'),
    });
    if (scan.status !== 200) throw new Error(`scan capture failed: ${scan.status} ${JSON.stringify(scan.body.responseDetails)}`);
    const request = EnrollmentRequestFactory.build({
      onboardingID: scan.body.onboardingID,
      encryptedUserData: { identifyingData: { ssn: undefined, matriculaId: idNumber } },
    });
    return enroll(client, request, programCode, headers);
  }

  async function close(accountId: string): Promise<void> {
    const res = await care.post(`/v1/care/accounts/${accountId}/close`, {});
    if (res.status !== 200) throw new Error(`care close failed: ${res.status} ${JSON.stringify(res.body.responseDetails)}`);
  }

  async function query<T = Record<string, unknown>>(sql: string, params: unknown[]): Promise<T[]> {
    const db = await app.db();
    try {
      return (await db.query(sql, params)).rows as T[];
    } finally {
      await db.end();
    }
  }

  beforeAll(async () => {
    // lite, in this file only: Matricula enabled and 1 active / 1 lifetime account per ITIN.
    app = await startTestApp('identity', { programs: [{ programCode: 'lite', matriculaEnabled: true, limits: { consumer: { itin: [1, 1] } } }] });
    acme = app.client('acme');
    care = app.client('care');
  });

  afterAll(async () => {
    await app.close();
  });

  describe('ITIN format: 400/761/0 Invalid ITIN', () => {
    let account: Enrolled;
    beforeAll(async () => {
      account = await enrollWithMatricula();
    });

    it.each([
      ['not starting with 9', '812345678'],
      ['8 digits', '91234567'],
      ['10 digits', '9123456789'],
      ['non-numeric', '91234567A'],
      ['with dashes', '912-34-5678'],
      ['a number instead of a string', 912345678],
      ['empty', ''],
    ])('%s', async (_name, itin) => {
      const res = await acme.post(identityPath(account), { itin });
      expect(res.status).toBe(400);
      expect(detail(res.body)).toMatchObject({ code: 761, subCode: 0, description: 'Invalid ITIN' });
      const [row] = await query<{ itin_enc: string | null }>('select itin_enc from users where id = $1', [account.userId]);
      expect(row?.itin_enc).toBeNull();
    });

    it('a missing itin is a missing required field (400/200/0)', async () => {
      const res = await acme.post(identityPath(account), {});
      expect(res.status).toBe(400);
      expect(detail(res.body)).toMatchObject({ code: 200, subCode: 0, description: 'itin is required' });
    });

    it('an unknown property is refused (400/100/2)', async () => {
      const res = await acme.post(identityPath(account), { itin: uniqueItin(), ssn: '123456789' });
      expect(res.status).toBe(400);
      expect(detail(res.body)).toMatchObject({ code: 100, subCode: 2 });
    });
  });

  it('an account that did not enroll with a Matricula ID: HTTP 200, 5/380, nothing stored', async () => {
    const account = await enroll(acme, EnrollmentRequestFactory.build());
    const res = await acme.post(identityPath(account), { itin: uniqueItin() });
    expect(res.status).toBe(200);
    expect(detail(res.body)).toEqual(linked({ code: 5, subCode: 380, description: 'An Identity can only be added to a Matricula based enrollment' }));
    expect(res.body.user).toBeUndefined();
    const keys = await query('select * from account_limit_keys where account_id = $1 and key_kind = $2', [account.accountId, 'itin']);
    expect(keys).toHaveLength(0);
  });

  it('adds the ITIN: encrypted with a blind index, a limit key, userUpdated emitted, the user answered', async () => {
    const account = await enrollWithMatricula();
    const itin = uniqueItin();
    const res = await acme.post(identityPath(account), { itin });
    expect(res.status).toBe(200);
    expect(detail(res.body)).toEqual({ code: 0, subCode: 0, description: 'Success' });
    expect(res.body.user).toMatchObject({ userIdentifier: account.userId, isPrimaryAccountHolder: true });
    expect((res.body.user as Record<string, unknown>).encryptedUserData).toBeUndefined();

    const [user] = await query<{ itin_enc: string; itin_bidx: string }>('select itin_enc, itin_bidx from users where id = $1', [account.userId]);
    expect(user?.itin_enc).toMatch(/^v2\./);
    expect(user?.itin_enc).not.toContain(itin);
    expect(user?.itin_bidx).toEqual(expect.any(String));
    expect(user?.itin_bidx).not.toContain(itin);
    const keys = await query<{ key_bidx: string }>('select key_bidx from account_limit_keys where account_id = $1 and key_kind = $2', [
      account.accountId,
      'itin',
    ]);
    expect(keys.map((k) => k.key_bidx)).toEqual([user?.itin_bidx]);

    const events = await query<{ payload: unknown }>('select payload from outbox_events where account_id = $1 and event_type = $2', [
      account.accountId,
      'userUpdated',
    ]);
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0]?.payload)).toContain(account.userId);
    expect(JSON.stringify(events[0]?.payload)).not.toContain(itin);
  });

  it('the same ITIN again changes nothing; a different one is declined (HTTP 200, 5/381)', async () => {
    const account = await enrollWithMatricula();
    const itin = uniqueItin();
    expect(detail((await acme.post(identityPath(account), { itin })).body).code).toBe(0);
    const again = await acme.post(identityPath(account), { itin });
    expect(again.status).toBe(200);
    expect(detail(again.body)).toMatchObject({ code: 0, subCode: 0 });
    const other = await acme.post(identityPath(account), { itin: uniqueItin() });
    expect(other.status).toBe(200);
    expect(detail(other.body)).toMatchObject({ code: 5, subCode: 381 });
    const events = await query('select 1 from outbox_events where account_id = $1 and event_type = $2', [account.accountId, 'userUpdated']);
    expect(events).toHaveLength(1);
  });

  describe('ITIN limits (consumer program: 1 active, 3 lifetime)', () => {
    it('a second Matricula account adding the same ITIN is declined with 2/60 and stores nothing', async () => {
      const itin = uniqueItin();
      const first = await enrollWithMatricula();
      expect(detail((await acme.post(identityPath(first), { itin })).body).code).toBe(0);
      const second = await enrollWithMatricula();
      const res = await acme.post(identityPath(second), { itin });
      expect(res.status).toBe(200);
      expect(detail(res.body)).toEqual(linked({ code: 2, subCode: 60, description: 'Number of Active Accounts Exceeded' }));
      const [user] = await query<{ itin_enc: string | null }>('select itin_enc from users where id = $1', [second.userId]);
      expect(user?.itin_enc).toBeNull();
      const keys = await query('select 1 from account_limit_keys where account_id = $1 and key_kind = $2', [second.accountId, 'itin']);
      expect(keys).toHaveLength(0);
    });

    it('the added ITIN then counts in enrollment limits (an enrollment with it as ssn is declined 2/60)', async () => {
      const itin = uniqueItin();
      const account = await enrollWithMatricula();
      expect(detail((await acme.post(identityPath(account), { itin })).body).code).toBe(0);
      const res = await acme.post(
        '/v1/programs/sandbox/enrollments',
        EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn: itin, dateOfBirth: '1985-02-03' } } }),
      );
      expect(res.status).toBe(200);
      expect(detail(res.body)).toMatchObject({ code: 2, subCode: 60 });
    });

    it('a closed account frees the active slot but still counts over the lifetime (2/61)', async () => {
      // The lite program of this file allows 1 active and 1 lifetime account per ITIN.
      const itin = uniqueItin();
      const first = await enroll(acme, EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn: itin } } }), 'lite');
      await close(first.accountId);
      const matricula = await enrollWithMatricula(acme, 'lite');
      const res = await acme.post(identityPath(matricula), { itin });
      expect(res.status).toBe(200);
      expect(detail(res.body)).toEqual(linked({ code: 2, subCode: 61, description: 'Number of Activated Accounts over Lifetime exceeded' }));
    });
  });

  describe('an ITIN added to an account that is not active', () => {
    it('a closed account takes an ITIN another account holds actively: it counts toward the lifetime limit only (0/0)', async () => {
      const itin = uniqueItin();
      const holder = await enrollWithMatricula();
      expect(detail((await acme.post(identityPath(holder), { itin })).body).code).toBe(0);
      const closed = await enrollWithMatricula();
      await close(closed.accountId);
      const res = await acme.post(identityPath(closed), { itin });
      expect(res.status).toBe(200);
      expect(detail(res.body)).toMatchObject({ code: 0, subCode: 0 });
    });

    it('a closed account never activated counts toward neither limit: it takes an ITIN whose lifetime is full (0/0)', async () => {
      // The lite program of this file allows 1 active and 1 lifetime account per ITIN.
      const itin = uniqueItin();
      const holder = await enrollWithMatricula(acme, 'lite');
      expect(detail((await acme.post(identityPath(holder), { itin })).body).code).toBe(0);
      const neverActivated = await enrollWithMatricula(acme, 'lite', { 'x-sandbox-fault': 'billCycle' });
      await close(neverActivated.accountId);
      const res = await acme.post(identityPath(neverActivated), { itin });
      expect(res.status).toBe(200);
      expect(detail(res.body)).toMatchObject({ code: 0, subCode: 0 });
    });
  });

  describe('tenancy, scope and look-ups', () => {
    it("an unknown account or user, or another partner's account: 404/10/0 Account Not Found", async () => {
      const account = await enrollWithMatricula();
      const attempts: Array<[EnrollmentClient, Enrolled]> = [
        [acme, { accountId: randomUUID(), userId: account.userId }],
        [acme, { accountId: 'not-a-uuid', userId: account.userId }],
        [acme, { accountId: account.accountId, userId: randomUUID() }],
        [acme, { accountId: account.accountId, userId: 'not-a-uuid' }],
        [app.client('globex'), account],
      ];
      for (const [client, target] of attempts) {
        const res = await client.post(identityPath(target), { itin: uniqueItin() });
        expect(res.status).toBe(404);
        expect(detail(res.body)).toEqual(linked({ code: 10, subCode: 0, description: 'Account Not Found' }));
      }
      const [user] = await query<{ itin_enc: string | null }>('select itin_enc from users where id = $1', [account.userId]);
      expect(user?.itin_enc).toBeNull();
    });

    it('needs scope identity', async () => {
      const account = await enrollWithMatricula();
      const res = await app.client('acme', { scope: 'users' }).post(identityPath(account), { itin: uniqueItin() });
      expect(res.status).toBe(403);
      expect(detail(res.body)).toMatchObject({ code: 403, subCode: 1 });
    });

    it('a locked account is declined like a user update (HTTP 200, 5/362)', async () => {
      const account = await enrollWithMatricula();
      expect((await care.post(`/v1/care/accounts/${account.accountId}/lock`, {})).status).toBe(200);
      const res = await acme.post(identityPath(account), { itin: uniqueItin() });
      expect(res.status).toBe(200);
      expect(detail(res.body)).toMatchObject({ code: 5, subCode: 362 });
    });
  });

  it('an encryption partner receives the user with the ITIN inside encryptedUserData (JWE)', async () => {
    const secure = app.client('secure');
    const account = await enrollWithMatricula(secure);
    const itin = uniqueItin();
    const res = await secure.post(identityPath(account), { itin });
    expect(res.status).toBe(200);
    const sealed = (res.body.user as { encryptedUserData: string }).encryptedUserData;
    expect(sealed.split('.')).toHaveLength(5);
    const key = (await importJWK((await encryptionPartnerKeys()).privateJwk, 'ECDH-ES')) as CryptoKey;
    const plain = JSON.parse(new TextDecoder().decode((await compactDecrypt(sealed, key)).plaintext)) as { identifyingData: Record<string, string> };
    expect(plain.identifyingData.itin).toBe(itin);
  });
});
