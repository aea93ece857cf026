import { randomUUID } from 'node:crypto';
import { compactDecrypt, CompactEncrypt, importJWK, JWK, CryptoKey } from 'jose';
import { ApiBody, EnrollmentClient } from '../client/enrollment-client';
import { EnrollmentRequestFactory, uniquePhone, validBusinessData } from './support/enrollment-factory';
import { encryptionPartnerKeys, startTestApp, TestApp, linked } from './support/test-app';

interface Enrolled {
  accountId: string;
  userId: string;
}

interface PlainUser {
  addresses: Array<Record<string, unknown>>;
  phoneNumbers: Array<{ phoneType: string; number: string; isDefault: boolean }>;
  email?: { emailAddress: string };
}

interface StoredRows {
  user: Record<string, unknown>;
  addresses: Array<Record<string, unknown>>;
  phones: Array<Record<string, unknown>>;
  phoneKey: string | null;
  events: number;
}

const detail = (body: ApiBody) => body.responseDetails[0];
const usersPath = (e: Enrolled, programCode = 'sandbox') => `/v1/programs/${programCode}/accounts/${e.accountId}/users`;
const userPath = (e: Enrolled, programCode = 'sandbox') => `${usersPath(e, programCode)}/${e.userId}`;
const homeAddress = (overrides: Record<string, unknown> = {}) => ({
  type: 'home',
  addressLine1: '200 Oak Ave',
  city: 'Dallas',
  state: 'TX',
  zipCode: '75201',
  ...overrides,
});

describe('User profile: PUT user, GET users (e2e)', () => {
  let app: TestApp;
  let acme: EnrollmentClient;
  let secure: EnrollmentClient;
  let care: EnrollmentClient;
  let partnerKey: CryptoKey;

  async function enroll(client: EnrollmentClient, request: Record<string, unknown>, headers?: Record<string, string>): Promise<Enrolled> {
    const res = await client.post('/v1/programs/sandbox/enrollments', request, { headers });
    if (res.status !== 200 || detail(res.body).code !== 0) throw new Error(`enrollment failed: ${res.status} ${JSON.stringify(res.body.responseDetails)}`);
    const body = res.body as ApiBody & { account: { accountIdentifier: string }; user: { userIdentifier: string } };
    return { accountId: body.account.accountIdentifier, userId: body.user.userIdentifier };
  }

  const withPhones = (phoneNumbers: Array<Record<string, unknown>>, overrides: Record<string, unknown> = {}) =>
    EnrollmentRequestFactory.build({ ...overrides, encryptedUserData: { ...((overrides.encryptedUserData as object) ?? {}), phoneNumbers } });

  async function careCall(accountId: string, action: 'lock' | 'close'): Promise<void> {
    const res = await care.post(`/v1/care/accounts/${accountId}/${action}`, {});
    if (res.status !== 200) throw new Error(`care ${action} failed: ${res.status} ${JSON.stringify(res.body.responseDetails)}`);
  }

  async function stored(e: Enrolled): Promise<StoredRows> {
    const db = await app.db();
    try {
      const user = (await db.query('select * from users where id = $1', [e.userId])).rows[0] as Record<string, unknown>;
      const addresses = (await db.query('select * from user_addresses where user_id = $1 order by type', [e.userId])).rows as Array<Record<string, unknown>>;
      const phones = (await db.query('select * from user_phones where user_id = $1 order by phone_type', [e.userId])).rows as Array<Record<string, unknown>>;
      const key = (await db.query(`select key_bidx from account_limit_keys where account_id = $1 and key_kind = 'phone' and retired_at is null`, [e.accountId]))
        .rows[0] as { key_bidx: string } | undefined;
      const events = (await db.query(`select count(*)::int as n from outbox_events where account_id = $1 and event_type = 'userUpdated'`, [e.accountId]))
        .rows[0] as { n: number };
      return { user, addresses, phones, phoneKey: key?.key_bidx ?? null, events: events.n };
    } finally {
      await db.end();
    }
  }

  async function open(sealed: unknown): Promise<PlainUser> {
    expect(typeof sealed).toBe('string');
    const { plaintext } = await compactDecrypt(sealed as string, partnerKey);
    return JSON.parse(new TextDecoder().decode(plaintext)) as PlainUser;
  }

  /** The user as an encryption partner sees it through GET users. */
  async function profileOf(e: Enrolled): Promise<PlainUser> {
    const res = await secure.get(usersPath(e));
    expect(res.status).toBe(200);
    return open((res.body.users as Array<{ encryptedUserData: string }>)[0]?.encryptedUserData);
  }

  beforeAll(async () => {
    // sandbox, in this file only: 1 active and 2 lifetime accounts per default phone, so limits are reachable.
    app = await startTestApp('user-profile', {
      programs: [{ programCode: 'sandbox', limits: { consumer: { phone: [1, 2] }, business: { phone: [1, 2] } } }],
    });
    acme = app.client('acme');
    secure = app.client('secure');
    care = app.client('care');
    partnerKey = (await importJWK((await encryptionPartnerKeys()).privateJwk, 'ECDH-ES')) as CryptoKey;
  });

  afterAll(async () => {
    await app.close();
  });

  describe('addresses and email', () => {
    it('an address update leaves email and phones untouched', async () => {
      const e = await enroll(secure, EnrollmentRequestFactory.build());
      const before = await stored(e);
      const res = await secure.put(userPath(e), { encryptedUserData: { address: homeAddress() } });
      expect(res.status).toBe(200);
      expect(detail(res.body)).toEqual({ code: 0, subCode: 0, description: 'Success' });
      expect(res.body.user).toMatchObject({ userIdentifier: e.userId, isPrimaryAccountHolder: true });
      const plain = await open((res.body.user as { encryptedUserData: string }).encryptedUserData);
      expect(plain.addresses).toEqual([
        expect.objectContaining({ type: 'home', isDefault: true, addressLine1: '200 Oak Ave', city: 'Dallas', zipCode: '75201' }),
      ]);
      expect(plain.addresses[0]?.addressLine2).toBeUndefined();

      const after = await stored(e);
      expect(after.user.email_enc).toBe(before.user.email_enc);
      expect(after.phones).toEqual(before.phones);
      expect(after.addresses).toHaveLength(1);
      expect(after.addresses[0]?.id).toBe(before.addresses[0]?.id);
      expect(after.addresses[0]?.address_enc).not.toBe(before.addresses[0]?.address_enc);
      expect(JSON.stringify(after.addresses)).not.toContain('200 Oak Ave');
    });

    it('a new address type is added and the existing ones are kept (no deletion)', async () => {
      const e = await enroll(secure, EnrollmentRequestFactory.build());
      const res = await secure.put(userPath(e), { encryptedUserData: { address: homeAddress({ type: 'mailing', addressLine1: 'PO Box 12' }) } });
      expect(res.status).toBe(200);
      const plain = await profileOf(e);
      expect(plain.addresses.map((a) => [a.type, a.isDefault, a.addressLine1])).toEqual(
        expect.arrayContaining([
          ['home', true, '100 Main St'],
          ['mailing', false, 'PO Box 12'],
        ]),
      );
      expect(plain.addresses).toHaveLength(2);
      // The answer of an encryption partner is built from the locked read: the stored address, the
      // phone and the email it did not change are opened from their ciphertext, the new address is the one sent.
      const answered = await open((res.body.user as { encryptedUserData: string }).encryptedUserData);
      expect(answered.addresses).toEqual(plain.addresses);
      expect(answered.phoneNumbers).toEqual(plain.phoneNumbers);
      expect(answered.email).toEqual(plain.email);
      expect(answered.email?.emailAddress).toEqual(expect.stringContaining('@'));
    });

    it('a partner without encryption gets no encryptedUserData in the answer, and the update is stored', async () => {
      const e = await enroll(acme, EnrollmentRequestFactory.build());
      const res = await acme.put(userPath(e), { encryptedUserData: { address: homeAddress({ type: 'mailing', addressLine1: 'PO Box 13' }) } });
      expect(res.status).toBe(200);
      expect(res.body.user).toEqual({ userIdentifier: e.userId, isPrimaryAccountHolder: true, status: expect.any(String) });
      const after = await stored(e);
      expect(after.addresses.map((a) => [a.type, a.is_default])).toEqual([
        ['home', true],
        ['mailing', false],
      ]);
    });

    it('isDefault moves the default to a business address; a mailing address cannot be the default (400/1040)', async () => {
      const e = await enroll(secure, EnrollmentRequestFactory.build());
      const moved = await secure.put(userPath(e), { encryptedUserData: { address: homeAddress({ type: 'business', isDefault: true }) } });
      expect(moved.status).toBe(200);
      const plain = await profileOf(e);
      expect(Object.fromEntries(plain.addresses.map((a) => [a.type, a.isDefault]))).toEqual({ home: false, business: true });

      const mailing = await secure.put(userPath(e), { encryptedUserData: { address: homeAddress({ type: 'mailing', isDefault: true }) } });
      expect(mailing.status).toBe(400);
      expect(detail(mailing.body)).toMatchObject({ code: 1040, subCode: 0 });
      expect((await profileOf(e)).addresses).toHaveLength(2);
    });

    it('an email update changes the email only', async () => {
      const e = await enroll(secure, EnrollmentRequestFactory.build());
      const before = await stored(e);
      const res = await secure.put(userPath(e), { encryptedUserData: { email: { emailAddress: 'new.owner@example.org' } } });
      expect(res.status).toBe(200);
      expect((await profileOf(e)).email).toEqual({ emailAddress: 'new.owner@example.org' });
      const after = await stored(e);
      expect(after.addresses).toEqual(before.addresses);
      expect(after.phones).toEqual(before.phones);
      expect(JSON.stringify(after.user)).not.toContain('new.owner@example.org');
    });

    it('an empty encryptedUserData changes nothing and emits nothing', async () => {
      const e = await enroll(acme, EnrollmentRequestFactory.build());
      const before = await stored(e);
      const res = await acme.put(userPath(e), { encryptedUserData: {} });
      expect(res.status).toBe(200);
      expect(detail(res.body)).toMatchObject({ code: 0, subCode: 0 });
      const after = await stored(e);
      expect(after.addresses).toEqual(before.addresses);
      expect(after.phones).toEqual(before.phones);
      expect(after.events).toBe(before.events);
    });
  });

  describe('phones', () => {
    it('one phone of type mobile updated to type home in place (still one record)', async () => {
      const e = await enroll(secure, withPhones([{ phoneType: 'mobile', number: uniquePhone() }]));
      const before = await stored(e);
      const number = uniquePhone();
      const res = await secure.put(userPath(e), { encryptedUserData: { phoneNumber: { phoneType: 'home', number } } });
      expect(res.status).toBe(200);
      const after = await stored(e);
      expect(after.phones).toHaveLength(1);
      expect(after.phones[0]).toMatchObject({ id: before.phones[0]?.id, phone_type: 'home', is_default: true });
      expect(JSON.stringify(after.phones)).not.toContain(number);
      expect((await profileOf(e)).phoneNumbers).toEqual([{ phoneType: 'home', number, isDefault: true }]);
    });

    it('two phones and an update of a new type: three records; the same type is updated in place', async () => {
      const mobile = uniquePhone();
      const work = uniquePhone();
      const e = await enroll(
        secure,
        withPhones([
          { phoneType: 'mobile', number: mobile, isDefault: true },
          { phoneType: 'work', number: work },
        ]),
      );
      const home = uniquePhone();
      expect((await secure.put(userPath(e), { encryptedUserData: { phoneNumber: { phoneType: 'home', number: home } } })).status).toBe(200);
      let phones = (await profileOf(e)).phoneNumbers;
      expect(phones).toHaveLength(3);
      expect(phones).toEqual(
        expect.arrayContaining([
          { phoneType: 'mobile', number: mobile, isDefault: true },
          { phoneType: 'work', number: work, isDefault: false },
          { phoneType: 'home', number: home, isDefault: false },
        ]),
      );

      const newWork = uniquePhone();
      const before = await stored(e);
      expect((await secure.put(userPath(e), { encryptedUserData: { phoneNumber: { phoneType: 'work', number: newWork } } })).status).toBe(200);
      phones = (await profileOf(e)).phoneNumbers;
      expect(phones).toHaveLength(3);
      expect(phones).toEqual(expect.arrayContaining([{ phoneType: 'work', number: newWork, isDefault: false }]));
      const after = await stored(e);
      const byType = (rows: Array<Record<string, unknown>>, type: string) => rows.find((row) => row.phone_type === type);
      expect(byType(after.phones, 'work')?.id).toBe(byType(before.phones, 'work')?.id);
      expect(byType(after.phones, 'mobile')).toEqual(byType(before.phones, 'mobile'));
      expect(after.phoneKey).toBe(before.phoneKey);
    });

    it('isDefault true makes the updated phone the default, and the account then counts under it', async () => {
      const e = await enroll(
        secure,
        withPhones([
          { phoneType: 'mobile', number: uniquePhone() },
          { phoneType: 'work', number: uniquePhone() },
        ]),
      );
      const before = await stored(e);
      const number = uniquePhone();
      expect((await secure.put(userPath(e), { encryptedUserData: { phoneNumber: { phoneType: 'work', number, isDefault: true } } })).status).toBe(200);
      const phones = (await profileOf(e)).phoneNumbers;
      expect(phones.filter((p) => p.isDefault)).toEqual([{ phoneType: 'work', number, isDefault: true }]);
      const after = await stored(e);
      expect(after.phoneKey).not.toBeNull();
      expect(after.phoneKey).not.toBe(before.phoneKey);
    });
  });

  describe('phone limits on the default phone (this file: 1 active, 2 lifetime)', () => {
    it('consumer: declined with 2/63 then 2/66, nothing stored; a non-default phone is not counted', async () => {
      const shared = uniquePhone();
      const a = await enroll(acme, withPhones([{ phoneType: 'mobile', number: shared }]));
      const b = await enroll(
        acme,
        withPhones([
          { phoneType: 'mobile', number: uniquePhone() },
          { phoneType: 'home', number: uniquePhone() },
        ]),
      );
      const before = await stored(b);

      const declined = await acme.put(userPath(b), { encryptedUserData: { phoneNumber: { phoneType: 'mobile', number: shared } } });
      expect(declined.status).toBe(200);
      expect(detail(declined.body)).toEqual(linked({ code: 2, subCode: 63, description: 'Number of Active Accounts Exceeded' }));
      expect(declined.body.user).toBeUndefined();
      const unchanged = await stored(b);
      expect(unchanged.phones).toEqual(before.phones);
      expect(unchanged.phoneKey).toBe(before.phoneKey);
      expect(unchanged.events).toBe(before.events);

      const secondary = await acme.put(userPath(b), { encryptedUserData: { phoneNumber: { phoneType: 'work', number: shared } } });
      expect(detail(secondary.body)).toMatchObject({ code: 0, subCode: 0 });
      expect((await stored(b)).phones).toHaveLength(3);
      const promote = await acme.put(userPath(b), { encryptedUserData: { phoneNumber: { phoneType: 'work', number: shared, isDefault: true } } });
      expect(detail(promote.body)).toMatchObject({ code: 2, subCode: 63 });

      await careCall(a.accountId, 'close');
      const allowed = await acme.put(userPath(b), { encryptedUserData: { phoneNumber: { phoneType: 'mobile', number: shared } } });
      expect(detail(allowed.body)).toMatchObject({ code: 0, subCode: 0 });
      expect((await stored(b)).phoneKey).not.toBe(before.phoneKey);

      await careCall(b.accountId, 'close');
      const c = await enroll(acme, withPhones([{ phoneType: 'mobile', number: uniquePhone() }]));
      const lifetime = await acme.put(userPath(c), { encryptedUserData: { phoneNumber: { phoneType: 'home', number: shared } } });
      expect(lifetime.status).toBe(200);
      expect(detail(lifetime.body)).toEqual(linked({ code: 2, subCode: 66, description: 'Number of Activated Accounts over Lifetime exceeded' }));
    });

    it('a closed account takes a default phone another account holds actively: judged by the lifetime limit only', async () => {
      const shared = uniquePhone();
      await enroll(acme, withPhones([{ phoneType: 'mobile', number: shared }]));
      const closed = await enroll(acme, withPhones([{ phoneType: 'mobile', number: uniquePhone() }]));
      await careCall(closed.accountId, 'close');
      const res = await acme.put(userPath(closed), { encryptedUserData: { phoneNumber: { phoneType: 'mobile', number: shared } } });
      expect(res.status).toBe(200);
      expect(detail(res.body)).toMatchObject({ code: 0, subCode: 0 });
    });

    it('business accounts are declined with the business wording', async () => {
      const shared = uniquePhone();
      const business = (number: string) =>
        EnrollmentRequestFactory.business({ encryptedUserData: { phoneNumbers: [{ phoneType: 'business', number }], businessData: validBusinessData() } });
      const d = await enroll(acme, business(shared));
      const e = await enroll(acme, business(uniquePhone()));
      const active = await acme.put(userPath(e), { encryptedUserData: { phoneNumber: { phoneType: 'business', number: shared } } });
      expect(active.status).toBe(200);
      expect(detail(active.body)).toEqual(linked({ code: 2, subCode: 63, description: 'Maximum number of active accounts with the same phone number' }));

      await careCall(d.accountId, 'close');
      expect(detail((await acme.put(userPath(e), { encryptedUserData: { phoneNumber: { phoneType: 'business', number: shared } } })).body).code).toBe(0);
      await careCall(e.accountId, 'close');
      const f = await enroll(acme, business(uniquePhone()));
      const lifetime = await acme.put(userPath(f), { encryptedUserData: { phoneNumber: { phoneType: 'business', number: shared } } });
      expect(detail(lifetime.body)).toEqual(
        linked({ code: 2, subCode: 66, description: 'Maximum number of accounts over a lifetime with the same phone number' }),
      );
    });
  });

  describe('account state', () => {
    it('a pending account can be updated', async () => {
      const e = await enroll(secure, EnrollmentRequestFactory.build(), { 'X-Sandbox-Fault': 'billCycle' });
      const account = await secure.get(`/v1/programs/sandbox/enrollments/accounts/${e.accountId}`);
      expect((account.body.account as { status: string }).status).toBe('pending');
      const res = await secure.put(userPath(e), { encryptedUserData: { address: homeAddress({ addressLine1: '9 Pending Rd' }) } });
      expect(res.status).toBe(200);
      expect(detail(res.body)).toMatchObject({ code: 0, subCode: 0 });
      expect((await profileOf(e)).addresses[0]?.addressLine1).toBe('9 Pending Rd');
    });

    it('a locked account is declined with HTTP 200, 5/362 and the stored profile is unchanged', async () => {
      const e = await enroll(acme, withPhones([{ phoneType: 'mobile', number: uniquePhone() }]));
      await careCall(e.accountId, 'lock');
      const before = await stored(e);
      const res = await acme.put(userPath(e), {
        encryptedUserData: { address: homeAddress(), email: { emailAddress: 'locked@example.org' }, phoneNumber: { phoneType: 'home', number: uniquePhone() } },
      });
      expect(res.status).toBe(200);
      expect(detail(res.body)).toEqual(linked({ code: 5, subCode: 362, description: 'A user profile cannot be updated for a locked account' }));
      const after = await stored(e);
      expect(after.user.email_enc).toBe(before.user.email_enc);
      expect(after.addresses).toEqual(before.addresses);
      expect(after.phones).toEqual(before.phones);
      expect(after.events).toBe(before.events);
    });
  });

  describe('validation (HTTP 400, nothing stored)', () => {
    let e: Enrolled;
    let before: StoredRows;
    beforeAll(async () => {
      e = await enroll(acme, EnrollmentRequestFactory.build());
      before = await stored(e);
    });

    it.each<[string, Record<string, unknown>, number, number, string]>([
      ['addressLine1 too short', { address: homeAddress({ addressLine1: 'A' }) }, 400, 505, 'encryptedUserData.address.addressLine1'],
      ['addressLine1 too long', { address: homeAddress({ addressLine1: 'A'.repeat(41) }) }, 400, 505, 'encryptedUserData.address.addressLine1'],
      ['addressLine1 invalid characters', { address: homeAddress({ addressLine1: '1 Main St <b>' }) }, 640, 505, 'encryptedUserData.address.addressLine1'],
      ['addressLine2 too long', { address: homeAddress({ addressLine2: 'B'.repeat(41) }) }, 400, 506, 'encryptedUserData.address.addressLine2'],
      ['addressLine2 invalid characters', { address: homeAddress({ addressLine2: 'Apt $5' }) }, 640, 506, 'encryptedUserData.address.addressLine2'],
      ['city too long', { address: homeAddress({ city: 'C'.repeat(26) }) }, 400, 504, 'encryptedUserData.address.city'],
      ['city invalid characters', { address: homeAddress({ city: 'Dallas;' }) }, 640, 504, 'encryptedUserData.address.city'],
      ['addressLine1 of spaces only', { address: homeAddress({ addressLine1: '   ' }) }, 640, 505, 'encryptedUserData.address.addressLine1'],
      ['invalid state', { address: homeAddress({ state: 'ZZ' }) }, 780, 0, 'encryptedUserData.address.state'],
      ['invalid zip', { address: homeAddress({ zipCode: '7520' }) }, 350, 0, 'encryptedUserData.address.zipCode'],
      ['invalid phone number', { phoneNumber: { phoneType: 'mobile', number: '12345' } }, 770, 0, 'encryptedUserData.phoneNumber.number'],
      ['invalid email', { email: { emailAddress: 'not-an-email' } }, 750, 0, 'encryptedUserData.email.emailAddress'],
      ['names cannot be changed here', { firstName: 'Pedro' }, 100, 2, 'encryptedUserData.firstName'],
    ])('%s', async (_name, encryptedUserData, code, subCode, field) => {
      const res = await acme.put(userPath(e), { encryptedUserData });
      expect(res.status).toBe(400);
      expect(detail(res.body)).toMatchObject({ code, subCode, field });
      const after = await stored(e);
      expect(after.addresses).toEqual(before.addresses);
      expect(after.phones).toEqual(before.phones);
      expect(after.user.email_enc).toBe(before.user.email_enc);
    });

    it('no type can repeat (one address, one phoneNumber): two of either are refused as such, and the 400 documents no 1020 row', async () => {
      for (const [encryptedUserData, code, subCode] of [
        [{ addresses: [homeAddress(), homeAddress()] }, 100, 2],
        [{ phoneNumbers: [{ phoneType: 'mobile', number: uniquePhone() }] }, 100, 2],
        [
          {
            phoneNumber: [
              { phoneType: 'mobile', number: uniquePhone() },
              { phoneType: 'mobile', number: uniquePhone() },
            ],
          },
          100,
          5,
        ],
      ] as const) {
        const res = await acme.put(userPath(e), { encryptedUserData });
        expect({ status: res.status, detail: detail(res.body) }).toMatchObject({ status: 400, detail: { code, subCode } });
      }
      const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
        paths: Record<string, { put: { responses: Record<string, { content: { 'application/json': { examples: Record<string, unknown> } } }> } }>;
      };
      const listed =
        document.paths['/v1/programs/{programCode}/accounts/{accountIdentifier}/users/{userIdentifier}'].put.responses['400'].content['application/json']
          .examples;
      expect(Object.keys(listed)).not.toContain('DUPLICATE_TYPE');
    });

    it('encryptedUserData is required', async () => {
      const res = await acme.put(userPath(e), {});
      expect(res.status).toBe(400);
      expect(detail(res.body)).toMatchObject({ code: 200, subCode: 0, description: 'encryptedUserData is required' });
    });
  });

  describe('encryption partners, events and tenancy', () => {
    it('an encryption partner may send encryptedUserData as a JWE', async () => {
      const e = await enroll(secure, EnrollmentRequestFactory.build());
      const jwks = (await (await fetch(`${app.baseUrl}/.well-known/jwks.json`)).json()) as { keys: Array<JWK & { use?: string }> };
      const enc = jwks.keys.find((key) => key.use === 'enc') as JWK;
      const sealed = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ address: homeAddress({ addressLine1: '5 Sealed Way' }) })))
        .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM' })
        .encrypt(await importJWK(enc, 'ECDH-ES'));
      const res = await secure.put(userPath(e), { encryptedUserData: sealed });
      expect(res.status).toBe(200);
      expect((await profileOf(e)).addresses[0]?.addressLine1).toBe('5 Sealed Way');
    });

    it("an encryption partner's answer seals the user as updated (new address and email, phones kept)", async () => {
      const e = await enroll(secure, EnrollmentRequestFactory.build());
      const res = await secure.put(userPath(e), {
        encryptedUserData: { address: homeAddress({ addressLine1: '7 Answer Ave' }), email: { emailAddress: 'sealed.answer@example.com' } },
      });
      expect(res.status).toBe(200);
      const answered = await open((res.body.user as { encryptedUserData?: unknown }).encryptedUserData);
      expect(answered.email).toEqual({ emailAddress: 'sealed.answer@example.com' });
      expect(answered.addresses).toEqual([expect.objectContaining({ type: 'home', addressLine1: '7 Answer Ave' })]);
      expect(answered).toEqual(await profileOf(e));
    });

    it('emits userUpdated naming what changed, without plaintext', async () => {
      const e = await enroll(acme, EnrollmentRequestFactory.build());
      const number = uniquePhone();
      await acme.put(userPath(e), { encryptedUserData: { address: homeAddress(), phoneNumber: { phoneType: 'mobile', number } } });
      const db = await app.db();
      try {
        const { rows } = await db.query(`select partner_id, program_code, payload from outbox_events where account_id = $1 and event_type = 'userUpdated'`, [
          e.accountId,
        ]);
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ partner_id: 'acme', program_code: 'sandbox' });
        const payload = JSON.stringify(rows[0].payload);
        expect(payload).toContain(e.userId);
        expect(payload).toContain('address');
        expect(payload).toContain('phoneNumber');
        expect(payload).not.toContain('200 Oak Ave');
        expect(payload).not.toContain(number);
      } finally {
        await db.end();
      }
    });

    it('GET users: primary first; encryptedUserData omitted for a partner without encryption', async () => {
      const e = await enroll(acme, EnrollmentRequestFactory.build());
      const res = await acme.get(usersPath(e));
      expect(res.status).toBe(200);
      expect(detail(res.body)).toEqual({ code: 0, subCode: 0, description: 'Success' });
      const users = res.body.users as Array<Record<string, unknown>>;
      expect(users).toHaveLength(1);
      expect(users[0]).toMatchObject({ userIdentifier: e.userId, isPrimaryAccountHolder: true, status: expect.any(String) });
      expect(users[0]).not.toHaveProperty('encryptedUserData');
    });

    it('GET users for an encryption partner carries the JWE of the user data', async () => {
      const e = await enroll(secure, EnrollmentRequestFactory.build({ encryptedUserData: { email: { emailAddress: 'jwe.reader@example.com' } } }));
      const plain = await profileOf(e);
      expect(plain.email).toEqual({ emailAddress: 'jwe.reader@example.com' });
      expect(plain.addresses[0]).toMatchObject({ type: 'home', addressLine1: '100 Main St' });
    });

    it('unknown account or user, another partner or program: 404/10/0 Account Not Found', async () => {
      const e = await enroll(acme, EnrollmentRequestFactory.build());
      const globex = app.client('globex');
      const notFound = [
        await acme.get(usersPath({ accountId: randomUUID(), userId: e.userId })),
        await acme.get(usersPath({ accountId: 'nope', userId: e.userId })),
        await globex.get(usersPath(e)),
        await acme.get(usersPath(e, 'lite')),
        await acme.put(userPath({ accountId: e.accountId, userId: randomUUID() }), { encryptedUserData: { address: homeAddress() } }),
        await acme.put(userPath({ accountId: e.accountId, userId: 'nope' }), { encryptedUserData: { address: homeAddress() } }),
        await globex.put(userPath(e), { encryptedUserData: { address: homeAddress() } }),
      ];
      for (const res of notFound) {
        expect(res.status).toBe(404);
        expect(detail(res.body)).toEqual(linked({ code: 10, subCode: 0, description: 'Account Not Found' }));
      }
      expect((await stored(e)).events).toBe(0);
    });

    it('needs scope users', async () => {
      const e = await enroll(acme, EnrollmentRequestFactory.build());
      const narrow = app.client('acme', { scope: 'enrollments' });
      for (const res of [await narrow.get(usersPath(e)), await narrow.put(userPath(e), { encryptedUserData: {} })]) {
        expect(res.status).toBe(403);
        expect(detail(res.body)).toMatchObject({ code: 403, subCode: 1 });
      }
    });
  });
});
