import type { ApiBody } from '../client/enrollment-client';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const SCAN = '/v1/kycGates/scanCapture';
const ENROLL = '/v1/programs/sandbox/enrollments';
const IMAGE = Buffer.from('front of the card').toString('base64');

let serial = 0;
const matriculaNumber = () => `MX${Date.now().toString().slice(-6)}${String(++serial).padStart(3, '0')}`;
const scanBody = (overrides: Record<string, unknown> = {}) => ({
  programCode: 'sandbox',
  idType: 'matricula',
  idNumber: matriculaNumber(),
  issuingCountry: 'MX',
  frontImage: IMAGE,
  ...overrides,
});
/** A Matricula enrollment: no ssn, the onboardingID of a scan. */
const matriculaEnrollment = (onboardingID: string, identifyingData: Record<string, unknown> = {}) =>
  EnrollmentRequestFactory.build({ onboardingID, encryptedUserData: { identifyingData: { ssn: undefined, ...identifyingData } } });

describe('Scan capture and Matricula enrollment (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('scan-capture');
  });

  afterAll(async () => {
    await app.close();
  });

  async function scan(overrides: Record<string, unknown> = {}, partner: 'acme' | 'globex' = 'acme'): Promise<{ onboardingID: string; idNumber: string }> {
    const body = scanBody(overrides);
    const res = await app.client(partner).post(SCAN, body);
    expect({ status: res.status, detail: res.body.responseDetails[0] }).toEqual({ status: 200, detail: { code: 0, subCode: 0, description: 'Success' } });
    expect(res.body.status).toBe('completed');
    expect(res.body.onboardingID).toMatch(/^[0-9a-f-]{36}$/);
    return { onboardingID: res.body.onboardingID as string, idNumber: body.idNumber as string };
  }

  const expectInvalidOnboarding = (res: { status: number; body: ApiBody }) => {
    expect(res.status).toBe(400);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 660, subCode: 0, description: 'Invalid onboardingID' });
  };

  describe('POST /v1/kycGates/scanCapture', () => {
    it('takes photographs: a body of several MiB is accepted, up to 10 MiB (CONTRACT section 6)', async () => {
      // Two photographs of about 2.2 MiB each once in base64: far over the other routes' 64 KiB.
      const photo = Buffer.alloc(1700 * 1024, 7).toString('base64');
      const { onboardingID } = await scan({ frontImage: photo, backImage: photo });
      expect(onboardingID).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('refuses a body over 10 MiB with 413/100/3, and keeps 64 KiB on every other route', async () => {
      const tooLarge = await app.client().post(SCAN, scanBody({ frontImage: Buffer.alloc(8 * 1024 * 1024).toString('base64') }));
      expect(tooLarge.status).toBe(413);
      // The route's own limit, not the 64 KiB of the others.
      expect(tooLarge.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 3, description: 'Request body exceeds 10 MiB' });
      const enrollment = EnrollmentRequestFactory.build({ encryptedUserData: { middleName: 'A'.repeat(70 * 1024) } });
      const elsewhere = await app.client().post(ENROLL, enrollment);
      expect(elsewhere.status).toBe(413);
      expect(elsewhere.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 3, description: 'Request body exceeds 64 KiB' });
      // CONTRACT section 11: the triple's one public entry covers both texts.
      const catalogue = (await (await fetch(`${app.baseUrl}/v1/errors`)).json()) as { errors: Array<{ code: number; subCode: number; description: string }> };
      expect(catalogue.errors.find((e) => e.code === 100 && e.subCode === 3)?.description).toBe('Request body exceeds 64 KiB; Request body exceeds 10 MiB');
    });

    it('yields an onboardingID and keeps the number encrypted', async () => {
      const { onboardingID, idNumber } = await scan();
      const db = await app.db();
      try {
        const row = (await db.query('select * from scan_captures where id = $1', [onboardingID])).rows[0] as Record<string, unknown>;
        expect(row.status).toBe('completed');
        expect(JSON.stringify(row)).not.toContain(idNumber);
        expect(new Date(row.expires_at as string).getTime() - new Date(row.created_at as string).getTime()).toBe(24 * 3600 * 1000);
      } finally {
        await db.end();
      }
    });

    it('needs scope enrollments and a program of the partner', async () => {
      const scoped = await app.client('acme', { scope: 'users' }).post(SCAN, scanBody());
      expect(scoped.status).toBe(403);
      expect(scoped.body.responseDetails[0]).toMatchObject({ code: 403, subCode: 1 });
      const foreign = await app.client('acme').post(SCAN, scanBody({ programCode: 'other' }));
      expect(foreign.status).toBe(403);
      expect(foreign.body.responseDetails[0]).toMatchObject({ code: 403, subCode: 2 });
    });

    it('validates the request', async () => {
      const cases: Array<[Record<string, unknown>, number, number]> = [
        [{ frontImage: undefined }, 200, 0],
        [{ idNumber: undefined }, 200, 0],
        [{ idType: 'passport' }, 100, 5],
        [{ issuingCountry: 'ZZ' }, 100, 5],
        [{ frontImage: 'not base64!' }, 100, 5],
        // An image of no bytes is no image.
        [{ frontImage: '' }, 100, 5],
        [{ backImage: '' }, 100, 5],
        [{ programCode: 'lite' }, 100, 5],
        [{ selfie: IMAGE }, 100, 2],
      ];
      for (const [overrides, code, subCode] of cases) {
        const res = await app.client().post(SCAN, scanBody(overrides));
        expect({ overrides, status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ overrides, status: 400, detail: { code, subCode } });
      }
    });
  });

  describe('Matricula enrollment', () => {
    it('enrolls with the onboardingID, stores the scanned number as the identity, and uses the onboardingID once', async () => {
      const { onboardingID } = await scan();
      const res = await app.client().post(ENROLL, matriculaEnrollment(onboardingID));
      expect(res.status).toBe(200);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
      const accountId = (res.body.account as { accountIdentifier: string }).accountIdentifier;
      const db = await app.db();
      try {
        expect((await db.query(`select identity_kind from accounts where id = $1`, [accountId])).rows[0].identity_kind).toBe('matricula');
        const user = (await db.query(`select ssn_enc, matricula_enc, matricula_bidx from users where account_id = $1`, [accountId])).rows[0];
        expect(user.ssn_enc).toBeNull();
        expect(user.matricula_enc).toMatch(/^v2\./);
        const scanRow = (await db.query(`select used_by_account_id, used_at from scan_captures where id = $1`, [onboardingID])).rows[0];
        expect(scanRow.used_by_account_id).toBe(accountId);
        expect(scanRow.used_at).not.toBeNull();
      } finally {
        await db.end();
      }
      expectInvalidOnboarding(await app.client().post(ENROLL, matriculaEnrollment(onboardingID)));
    });

    it('accepts a matriculaId equal to the scanned number, refuses another', async () => {
      const first = await scan();
      expectInvalidOnboarding(await app.client().post(ENROLL, matriculaEnrollment(first.onboardingID, { matriculaId: 'MX000000' })));
      const ok = await app.client().post(ENROLL, matriculaEnrollment(first.onboardingID, { matriculaId: first.idNumber }));
      expect(ok.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    });

    it('refuses an unknown, malformed, other-partner, other-program or expired onboardingID with 400/660', async () => {
      expectInvalidOnboarding(await app.client().post(ENROLL, matriculaEnrollment('00000000-0000-4000-8000-000000000000')));
      expectInvalidOnboarding(await app.client().post(ENROLL, matriculaEnrollment('not-an-id')));
      const globexScan = await scan({}, 'globex');
      expectInvalidOnboarding(await app.client('acme').post(ENROLL, matriculaEnrollment(globexScan.onboardingID)));
      const otherProgram = await scan({ programCode: 'other' }, 'globex');
      expectInvalidOnboarding(await app.client('globex').post(ENROLL, matriculaEnrollment(otherProgram.onboardingID)));
      const expiring = await scan();
      const db = await app.db();
      try {
        await db.query(`update scan_captures set expires_at = now() - interval '1 second' where id = $1`, [expiring.onboardingID]);
      } finally {
        await db.end();
      }
      expectInvalidOnboarding(await app.client().post(ENROLL, matriculaEnrollment(expiring.onboardingID)));
    });

    it('an empty onboardingID is an invalid one (400/660/0), never an enrollment without identity: real call and dry run, business too, with a matriculaId too', async () => {
      for (const body of [
        matriculaEnrollment(''),
        matriculaEnrollment('', { matriculaId: 'A1234567' }),
        EnrollmentRequestFactory.business({ onboardingID: '', encryptedUserData: { identifyingData: { ssn: undefined } } }),
      ]) {
        expectInvalidOnboarding(await app.client().post(ENROLL, body));
        expectInvalidOnboarding(await app.client().post(`${ENROLL}?validateOnly=true`, body));
        const status = await app.client().get(`${ENROLL}/requests/${body.requestId}`);
        expect(status.status).toBe(404);
      }
    });

    it('CONTRACT section 6: an onboardingID on a program without matriculaEnabled is an invalid onboardingID (400/660/0), and is not used up', async () => {
      const { onboardingID } = await scan();
      const lite = await app.client().post('/v1/programs/lite/enrollments', matriculaEnrollment(onboardingID));
      expectInvalidOnboarding(lite);
      expect(lite.body.responseDetails[0]).toMatchObject({ field: 'onboardingID' });
      const ok = await app.client().post(ENROLL, matriculaEnrollment(onboardingID));
      expect(ok.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    });

    it('a matriculaId needs an onboardingID (400/200/0); field rules come before the onboardingID look-up', async () => {
      const noScan = await app
        .client()
        .post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn: undefined, matriculaId: 'MX123456' } } }));
      expect(noScan.status).toBe(400);
      expect(noScan.body.responseDetails[0]).toMatchObject({ code: 200, subCode: 0, description: 'onboardingID is required' });
      const request = matriculaEnrollment('00000000-0000-4000-8000-000000000000');
      request.encryptedUserData.addresses[0].city = 'C'.repeat(26);
      const res = await app.client().post(ENROLL, request);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 400, subCode: 504 });
    });

    it('a failed enrollment does not use up the onboardingID', async () => {
      const { onboardingID } = await scan();
      const bad = matriculaEnrollment(onboardingID, { matriculaId: 'MX999999' });
      expectInvalidOnboarding(await app.client().post(ENROLL, bad));
      const ok = await app.client().post(ENROLL, matriculaEnrollment(onboardingID));
      expect(ok.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    });
  });
});
