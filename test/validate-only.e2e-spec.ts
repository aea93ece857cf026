import type { Client } from 'pg';
import { ApiBody } from '../client/enrollment-client';
import { randomBytes, randomUUID } from 'node:crypto';
import { EnrollmentRequestFactory, uniqueItin } from './support/enrollment-factory';
import { tableDigest } from './support/hardening';
import { linked, startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';
const VALID = [{ code: 0, subCode: 0, description: 'Valid' }];
const detail = (body: ApiBody) => body.responseDetails[0];

describe('?validateOnly=true (e2e, CONTRACT section 11)', () => {
  let app: TestApp;
  let db: Client;

  beforeAll(async () => {
    app = await startTestApp('validate-only');
    db = await app.db();
  });

  afterAll(async () => {
    await db.end();
    await app.close();
  });

  describe('POST enrollments', () => {
    it('answers Valid with the body requestId, stores nothing, and leaves the requestId and the SSN limit free', async () => {
      const request = EnrollmentRequestFactory.build();
      const before = await tableDigest(db);
      for (let i = 0; i < 2; i++) {
        const res = await app.client().post(`${ENROLL}?validateOnly=true`, request);
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { requestId: request.requestId, responseDetails: VALID } });
        expect(res.headers.get('idempotent-replayed')).toBeNull();
      }
      expect(await tableDigest(db)).toEqual(before);

      // The consumer SSN limit is 1 active account: a validate-only call took no slot, and the requestId is new to the real call.
      const real = await app.client().post(ENROLL, request);
      expect(real.status).toBe(200);
      expect(detail(real.body)).toEqual({ code: 0, subCode: 0, description: 'Success' });
      expect(real.headers.get('idempotent-replayed')).toBeNull();
      const events = await db.query(`select count(*)::int as n from outbox_events where account_id = $1`, [
        (real.body.account as { accountIdentifier: string }).accountIdentifier,
      ]);
      expect(events.rows[0].n).toBeGreaterThan(0);
    });

    it('answers exactly the 400 the real call gives, without spending the requestId', async () => {
      const bad = EnrollmentRequestFactory.build({
        encryptedUserData: { firstName: 'J<hn', addresses: [{ type: 'home', addressLine1: 'x', city: 'Austin', state: 'TX', zipCode: '78701' }] },
      });
      const dry = await app.client().post(`${ENROLL}?validateOnly=true`, bad);
      const real = await app.client().post(ENROLL, bad);
      expect(dry.status).toBe(400);
      expect({ status: dry.status, body: dry.body }).toEqual({ status: real.status, body: real.body });
    });

    it('runs the program rules (currency, KYB enablement) and the terms window', async () => {
      const currency = await app.client().post(`${ENROLL}?validateOnly=true`, EnrollmentRequestFactory.build({ currency: 'MXN' }));
      expect({ status: currency.status, detail: detail(currency.body) }).toMatchObject({ status: 400, detail: { code: 650, subCode: 430 } });
      const kyb = await app.client().post(`/v1/programs/lite/enrollments?validateOnly=true`, EnrollmentRequestFactory.business());
      expect({ status: kyb.status, detail: detail(kyb.body) }).toMatchObject({ status: 400, detail: { code: 100, subCode: 5, field: 'accountType' } });
      const old = new Date(Date.now() - 40 * 24 * 3600 * 1000).toISOString();
      const terms = await app.client().post(`${ENROLL}?validateOnly=true`, EnrollmentRequestFactory.build({ termsAcceptanceDateTime: old }));
      expect({ status: terms.status, detail: detail(terms.body) }).toMatchObject({ status: 400, detail: { code: 620, subCode: 0 } });
    });

    it('keeps token, scope and tenancy checks', async () => {
      const request = EnrollmentRequestFactory.build();
      const anonymous = await app.client().post(`${ENROLL}?validateOnly=true`, request, { anonymous: true });
      expect(anonymous.status).toBe(401);
      const scoped = await app.client('acme', { scope: 'users' }).post(`${ENROLL}?validateOnly=true`, request);
      expect({ status: scoped.status, detail: detail(scoped.body) }).toMatchObject({ status: 403, detail: { code: 403, subCode: 1 } });
      const foreign = await app.client().post(`/v1/programs/other/enrollments?validateOnly=true`, request);
      expect({ status: foreign.status, detail: detail(foreign.body) }).toMatchObject({ status: 403, detail: { code: 403, subCode: 2 } });
    });

    it('refuses any value but true or false (400/100/5 naming validateOnly): a misspelt dry run never runs for real', async () => {
      const request = EnrollmentRequestFactory.build();
      for (const value of ['yes', '1', 'TRUE', '']) {
        const res = await app.client().post(`${ENROLL}?validateOnly=${value}`, request);
        expect({ value, status: res.status, detail: detail(res.body) }).toEqual({
          value,
          status: 400,
          detail: linked({ code: 100, subCode: 5, description: 'validateOnly has an invalid value or type', field: 'validateOnly' }),
        });
      }
      // A misspelt name too: any query parameter but validateOnly is an unknown property (400/100/2), and nothing runs.
      for (const query of ['validateonly=true', 'validate_only=true', 'dryRun=true']) {
        const res = await app.client().post(`${ENROLL}?${query}`, request);
        const name = query.split('=')[0];
        expect({ query, status: res.status, detail: detail(res.body) }).toEqual({
          query,
          status: 400,
          detail: linked({ code: 100, subCode: 2, description: `property ${name} should not exist`, field: name }),
        });
      }
      const real = await app.client().post(`${ENROLL}?validateOnly=false`, request);
      expect(detail(real.body)).toMatchObject({ code: 0, subCode: 0, description: 'Success' });
    });
  });

  describe('PUT users and PUT businessProfile', () => {
    let accountId: string;
    let userId: string;

    beforeAll(async () => {
      const res = await app.client().post(ENROLL, EnrollmentRequestFactory.business());
      accountId = (res.body.account as { accountIdentifier: string }).accountIdentifier;
      userId = (res.body.user as { userIdentifier: string }).userIdentifier;
    });

    it('a valid user update answers Valid and changes nothing; the rules needing no stored data still apply', async () => {
      const path = `/v1/programs/sandbox/accounts/${accountId}/users/${userId}?validateOnly=true`;
      const before = await tableDigest(db);
      const ok = await app.client().put(path, {
        encryptedUserData: {
          address: { type: 'mailing', addressLine1: '1 Elm St', city: 'Austin', state: 'TX', zipCode: '78701' },
          email: { emailAddress: 'new@example.com' },
        },
      });
      expect({ status: ok.status, responseDetails: ok.body.responseDetails }).toEqual({ status: 200, responseDetails: VALID });
      const mailingDefault = await app.client().put(path, {
        encryptedUserData: { address: { type: 'mailing', isDefault: true, addressLine1: '1 Elm St', city: 'Austin', state: 'TX', zipCode: '78701' } },
      });
      expect({ status: mailingDefault.status, detail: detail(mailingDefault.body) }).toMatchObject({ status: 400, detail: { code: 1040, subCode: 0 } });
      const city = await app
        .client()
        .put(path, { encryptedUserData: { address: { type: 'home', addressLine1: '1 Elm St', city: 'A'.repeat(26), state: 'TX', zipCode: '78701' } } });
      expect({ status: city.status, detail: detail(city.body) }).toMatchObject({ status: 400, detail: { code: 400, subCode: 504 } });
      expect(await tableDigest(db)).toEqual(before);
    });

    it('a valid business profile update answers Valid and changes nothing; a bad businessType is the real 400', async () => {
      const path = `/v1/programs/sandbox/accounts/${accountId}/businessProfile`;
      const before = await tableDigest(db);
      const ok = await app.client().put(`${path}?validateOnly=true`, { businessData: { businessName: 'Other Name LLC' } });
      expect({ status: ok.status, responseDetails: ok.body.responseDetails }).toEqual({ status: 200, responseDetails: VALID });
      const dry = await app.client().put(`${path}?validateOnly=true`, { businessData: { businessType: 'empire' } });
      const real = await app.client().put(path, { businessData: { businessType: 'empire' } });
      expect(dry.status).toBe(400);
      expect(dry.body.responseDetails).toEqual(real.body.responseDetails);
      expect(await tableDigest(db)).toEqual(before);
      const got = await app.client().get(path);
      expect((got.body.businessData as { businessName: string }).businessName).not.toBe('Other Name LLC');
    });
  });

  describe('write routes without a dry run', () => {
    const refused = (name: string) => ({
      status: 400,
      detail: linked({ code: 100, subCode: 2, description: `property ${name} should not exist`, field: name }),
    });

    it('refuse any query parameter (400/100/2 naming it) and run nothing: ?validateOnly=true never adds an ITIN for real', async () => {
      const idNumber = `MX${randomBytes(5).toString('hex').toUpperCase()}`;
      const scanBody = { programCode: 'sandbox', idType: 'matricula', idNumber, issuingCountry: 'MX', frontImage: randomBytes(48).toString('base64') };
      const beforeScan = await tableDigest(db);
      const dryScan = await app.client().post('/v1/kycGates/scanCapture?validateOnly=true', scanBody);
      expect({ status: dryScan.status, detail: detail(dryScan.body) }).toEqual(refused('validateOnly'));
      expect(await tableDigest(db)).toEqual(beforeScan);

      const scan = await app.client().post('/v1/kycGates/scanCapture', scanBody);
      const enrolled = await app.client().post(
        ENROLL,
        EnrollmentRequestFactory.build({
          onboardingID: scan.body.onboardingID,
          encryptedUserData: { identifyingData: { ssn: undefined, matriculaId: idNumber } },
        }),
      );
      expect(detail(enrolled.body)).toMatchObject({ code: 0, subCode: 0 });
      const accountId = (enrolled.body.account as { accountIdentifier: string }).accountIdentifier;
      const userId = (enrolled.body.user as { userIdentifier: string }).userIdentifier;
      const itin = uniqueItin();
      const identity = `/v1/accounts/${accountId}/users/${userId}/identity`;

      const before = await tableDigest(db);
      const calls = [
        { name: 'validateOnly', call: () => app.client().post(`${identity}?validateOnly=true`, { itin }) },
        { name: 'validateOnly', call: () => app.client('care').post(`/v1/care/accounts/${accountId}/lock?validateOnly=true`, {}) },
        { name: 'validateOnly', call: () => app.client('care').post(`/v1/care/accounts/${accountId}/close?validateOnly=true`, {}) },
        { name: 'dryRun', call: () => app.client().post('/v1/webhooks/test?dryRun=1', { eventType: 'accountUpdated' }) },
        { name: 'validateOnly', call: () => app.client().post(`/v1/webhooks/events/${randomUUID()}/redeliver?validateOnly=true`, {}) },
        { name: 'validateOnly', call: () => app.client().delete('/v1/sandbox/programs/sandbox/data?validateOnly=true') },
      ];
      for (const { name, call } of calls) {
        const res = await call();
        expect({ status: res.status, detail: detail(res.body) }).toEqual(refused(name));
      }
      expect(await tableDigest(db)).toEqual(before);

      const real = await app.client().post(identity, { itin });
      expect(detail(real.body)).toMatchObject({ code: 0, subCode: 0, description: 'Success' });
    });
  });

  describe('read routes', () => {
    it('refuse any query parameter (400/100/2 naming it), as the write routes and the event list do; without one they answer', async () => {
      const request = EnrollmentRequestFactory.build();
      const enrolled = await app.client().post(ENROLL, request);
      expect(detail(enrolled.body)).toMatchObject({ code: 0, subCode: 0 });
      const accountId = (enrolled.body.account as { accountIdentifier: string }).accountIdentifier;
      const reads = [
        { client: 'acme', path: `${ENROLL}/accounts/${accountId}` },
        { client: 'acme', path: `${ENROLL}/requests/${request.requestId}` },
        { client: 'acme', path: `/v1/programs/sandbox/accounts/${accountId}/users` },
        { client: 'acme', path: `/v1/programs/sandbox/accounts/${accountId}/businessProfile` },
        { client: 'acme', path: `/v1/webhooks/events/${randomUUID()}` },
        { client: 'acme', path: '/v1/errors' },
        { client: 'care', path: `/v1/care/accounts/${accountId}` },
        { client: 'care', path: `/v1/care/accounts/${accountId}/audit` },
        { client: 'care', path: `/v1/care/webhooks/events/${randomUUID()}` },
      ] as const;
      const answered = [];
      for (const { client, path } of reads) {
        const res = await app.client(client).get(`${path}?expand=user`);
        answered.push({ path, status: res.status, detail: detail(res.body) });
      }
      expect(answered).toEqual(
        reads.map(({ path }) => ({
          path,
          status: 400,
          detail: linked({ code: 100, subCode: 2, description: 'property expand should not exist', field: 'expand' }),
        })),
      );
      expect((await app.client().get(`${ENROLL}/accounts/${accountId}`)).status).toBe(200);
      expect((await app.client('care').get(`/v1/care/accounts/${accountId}/audit`)).status).toBe(200);
    });
  });
});
