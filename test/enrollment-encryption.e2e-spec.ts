import { compactDecrypt, CompactEncrypt, decodeProtectedHeader, importJWK, JWK, CryptoKey } from 'jose';
import type { ApiBody } from '../client/enrollment-client';
import { decryptData, isSuccess } from '../client';
import { EnrollmentRequestFactory, uniquePhone, uniqueSsn } from './support/enrollment-factory';
import { encryptionPartnerKeys, startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

describe('Enrollment encrypted data (e2e)', () => {
  let app: TestApp;
  let partnerPrivateKey: CryptoKey;
  let serviceEncKey: CryptoKey;

  beforeAll(async () => {
    app = await startTestApp('enrollment-encryption');
    partnerPrivateKey = (await importJWK((await encryptionPartnerKeys()).privateJwk, 'ECDH-ES')) as CryptoKey;
    const jwks = (await (await fetch(`${app.baseUrl}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    serviceEncKey = (await importJWK(jwks.keys.find((key) => key.use === 'enc') as JWK, 'ECDH-ES')) as CryptoKey;
  });

  afterAll(async () => {
    await app.close();
  });

  const seal = (data: unknown) =>
    new CompactEncrypt(new TextEncoder().encode(JSON.stringify(data))).setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM' }).encrypt(serviceEncKey);

  async function open<T>(jwe: unknown): Promise<T> {
    expect(typeof jwe).toBe('string');
    expect(decodeProtectedHeader(jwe as string)).toMatchObject({ alg: 'ECDH-ES', enc: 'A256GCM' });
    const { plaintext } = await compactDecrypt(jwe as string, partnerPrivateKey);
    return JSON.parse(new TextDecoder().decode(plaintext)) as T;
  }

  const accountOf = (body: ApiBody) => body.account as Record<string, unknown>;
  const userOf = (body: ApiBody) => body.user as Record<string, unknown>;

  it('an encryption partner sends encryptedUserData as JWE and receives user and account data as JWE it can decrypt', async () => {
    const request = EnrollmentRequestFactory.build();
    const userData = request.encryptedUserData as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await app.client('secure').post(ENROLL, { ...request, encryptedUserData: await seal(userData) });
    expect(res.status).toBe(200);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });

    const user = await open<Record<string, any>>(userOf(res.body).encryptedUserData); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(user).toMatchObject({
      firstName: 'José',
      middleName: 'A',
      lastName: 'Núñez',
      identifyingData: { dateOfBirth: '1990-04-01', ssn: userData.identifyingData.ssn },
      email: { emailAddress: 'jose@example.com' },
    });
    expect(user.addresses).toEqual([
      expect.objectContaining({
        type: 'home',
        isDefault: true,
        addressLine1: '100 Main St',
        addressLine2: 'Apt 4',
        city: 'Austin',
        state: 'TX',
        zipCode: '78701',
      }),
    ]);
    expect(user.phoneNumbers).toEqual([{ phoneType: 'mobile', number: userData.phoneNumbers[0].number, isDefault: true }]);

    const account = await open<Record<string, any>>(accountOf(res.body).encryptedAccountData); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(account.accountHolder).toEqual({ firstName: 'José', middleName: 'A', lastName: 'Núñez' });
    expect(account.directDeposit).toEqual({ routingNumber: expect.stringMatching(/^\d{9}$/), accountNumber: expect.stringMatching(/^\d{12}$/) });

    const got = await app.client('secure').get(`${ENROLL}/accounts/${accountOf(res.body).accountIdentifier as string}`);
    expect(got.status).toBe(200);
    expect(await open(userOf(got.body).encryptedUserData)).toEqual(user);
    expect(await open(accountOf(got.body).encryptedAccountData)).toEqual(account);
  });

  it('through the SDK: two different JWEs of the same data are one payload (the second replays), and the answers open with the partner key', async () => {
    const sdk = app.sdk('secure');
    const request = EnrollmentRequestFactory.build();
    const first = await sdk.enrollEncrypted('sandbox', request as never);
    const second = await sdk.enrollEncrypted('sandbox', request as never);
    expect(isSuccess(first.data)).toBe(true);
    expect(second.response.headers.get('idempotent-replayed')).toBe('true');
    expect(second.data?.account?.accountIdentifier).toBe(first.data?.account?.accountIdentifier);
    const { privateJwk } = await encryptionPartnerKeys();
    const account = await decryptData(first.data!.account!.encryptedAccountData!, privateJwk);
    expect(account).toEqual(await decryptData(second.data!.account!.encryptedAccountData!, privateJwk));
    const fetched = await sdk.getAccount('sandbox', first.data!.account!.accountIdentifier);
    expect((await decryptData<{ firstName: string }>(fetched.data!.user!.encryptedUserData!, privateJwk)).firstName).toBe('José');
  });

  it('GET account, GET users and care GET answer what the enrollment answered: the same fields, the same plaintexts', async () => {
    // Several addresses and phones, in an order that is neither alphabetical nor by type.
    const request = EnrollmentRequestFactory.business();
    const home = (request.encryptedUserData as { addresses: Array<Record<string, unknown>> }).addresses[0];
    request.encryptedUserData = {
      ...(request.encryptedUserData as object),
      addresses: [
        { ...home, type: 'mailing', addressLine1: '9 Post Rd', isDefault: false },
        { ...home, type: 'home', isDefault: true },
        { ...home, type: 'business', addressLine1: '1 Shop St', isDefault: false },
      ],
      phoneNumbers: [
        { phoneType: 'work', number: uniquePhone() },
        { phoneType: 'mobile', number: uniquePhone(), isDefault: true },
        { phoneType: 'home', number: uniquePhone() },
      ],
    };
    const res = await app.client('secure').post(ENROLL, request);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    const id = accountOf(res.body).accountIdentifier as string;
    const withoutJwe = (body: ApiBody) => {
      const { encryptedAccountData: _a, ...account } = accountOf(body);
      const { encryptedUserData: _u, ...user } = userOf(body);
      return { account, user, paymentInstruments: body.paymentInstruments };
    };
    const userPlain = await open<{ addresses: Array<{ type: string }>; phoneNumbers: Array<{ phoneType: string }> }>(userOf(res.body).encryptedUserData);
    expect(userPlain.addresses.map((a) => a.type)).toEqual(['mailing', 'home', 'business']);
    expect(userPlain.phoneNumbers.map((p) => p.phoneType)).toEqual(['work', 'mobile', 'home']);
    const accountPlain = await open(accountOf(res.body).encryptedAccountData);

    const got = await app.client('secure').get(`${ENROLL}/accounts/${id}`);
    expect(got.status).toBe(200);
    expect(withoutJwe(got.body)).toEqual(withoutJwe(res.body));
    expect(await open(userOf(got.body).encryptedUserData)).toEqual(userPlain);
    expect(await open(accountOf(got.body).encryptedAccountData)).toEqual(accountPlain);

    const users = await app.client('secure').get(`/v1/programs/sandbox/accounts/${id}/users`);
    expect(users.status).toBe(200);
    const [only, ...others] = users.body.users as Array<Record<string, unknown>>;
    expect(others).toEqual([]);
    const { encryptedUserData, ...listed } = only;
    expect(listed).toEqual(withoutJwe(res.body).user);
    expect(await open(encryptedUserData)).toEqual(userPlain);

    // Care is no encryption partner: the same view without the JWE properties.
    const care = await app.client('care').get(`/v1/care/accounts/${id}`);
    expect(care.status).toBe(200);
    expect(care.body.account).toEqual(withoutJwe(res.body).account);
    expect(care.body.user).toEqual(withoutJwe(res.body).user);
    expect(care.body.paymentInstruments).toEqual(res.body.paymentInstruments);
  });

  it('CONTRACT section 6: a JWE plaintext is NFC-normalised too: decomposed José sealed, then the precomposed plain retry replays', async () => {
    const request = EnrollmentRequestFactory.build();
    const userData = request.encryptedUserData as Record<string, unknown>;
    const decomposed = { ...userData, firstName: 'Jose\u0301', lastName: 'Nu\u0301n\u0303ez' };
    const sealedCall = await app.client('secure').post(ENROLL, { ...request, encryptedUserData: await seal(decomposed) });
    expect(sealedCall.status).toBe(200);
    expect(sealedCall.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    const user = await open<Record<string, unknown>>(userOf(sealedCall.body).encryptedUserData);
    expect(user).toMatchObject({ firstName: 'José', lastName: 'Núñez' });
    const retry = await app.client('secure').post(ENROLL, { ...request, encryptedUserData: { ...userData, firstName: 'José', lastName: 'Núñez' } });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(sealedCall.body);
  });

  it('a JWE plaintext nested deeper than 32 levels is refused like a plain body (400/100/1), never a 500', async () => {
    const request = EnrollmentRequestFactory.build();
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) deep = { a: deep };
    const res = await app
      .client('secure')
      .post(ENROLL, { ...request, encryptedUserData: await seal({ ...(request.encryptedUserData as object), deep }) }, { noRetry: true });
    expect(res.status).toBe(400);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 1 });
  });

  it('a compressed JWE (zip DEF) is refused (400/100/5) and stores nothing: the 64 KiB bound holds for what it carries (CONTRACT sections 1, 5)', async () => {
    const request = EnrollmentRequestFactory.build();
    // 200,000 characters that deflate to a few hundred bytes: the request is under 64 KiB, its plaintext far over.
    const data = { ...(request.encryptedUserData as object), middleName: 'a'.repeat(200_000) };
    const zipped = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(data)))
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', zip: 'DEF' })
      .encrypt(serviceEncKey);
    expect(zipped.length).toBeLessThan(64 * 1024);
    const small = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(request.encryptedUserData)))
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', zip: 'DEF' })
      .encrypt(serviceEncKey);
    for (const encryptedUserData of [zipped, small]) {
      const res = await app.client('secure').post(ENROLL, { ...request, encryptedUserData }, { noRetry: true });
      expect(res.status).toBe(400);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 5, field: 'encryptedUserData' });
    }
    const status = await app.client('secure').get(`${ENROLL}/requests/${request.requestId as string}`);
    expect(status.status).toBe(404);
  });

  it('an encryption partner may also send plain JSON; other partners get neither property', async () => {
    const secure = await app.client('secure').post(ENROLL, EnrollmentRequestFactory.build());
    expect(typeof userOf(secure.body).encryptedUserData).toBe('string');
    expect(typeof accountOf(secure.body).encryptedAccountData).toBe('string');
    const plain = await app.client('acme').post(ENROLL, EnrollmentRequestFactory.build());
    expect(userOf(plain.body)).not.toHaveProperty('encryptedUserData');
    expect(accountOf(plain.body)).not.toHaveProperty('encryptedAccountData');
  });

  it('a JWE from a partner not configured for encryption, or one that does not decrypt, is refused with 400', async () => {
    const request = EnrollmentRequestFactory.build();
    const sealed = await seal(request.encryptedUserData);
    const plainPartner = await app.client('acme').post(ENROLL, { ...request, encryptedUserData: sealed });
    expect(plainPartner.status).toBe(400);
    const tampered = await app.client('secure').post(ENROLL, { ...request, encryptedUserData: `${sealed.slice(0, -4)}AAAA` });
    expect(tampered.status).toBe(400);
    expect(tampered.body.responseDetails[0]).toMatchObject({ field: 'encryptedUserData' });
  });

  it('stores no plaintext of names (embossed names and stored answers included), SSN, date of birth, phone, email, address or Matricula number anywhere in the database', async () => {
    const secret = {
      firstName: 'Jesús',
      middleName: 'Ángel',
      lastName: 'Ximénez',
      dateOfBirth: '1983-11-27',
      ssn: uniqueSsn(),
      phone: uniquePhone(),
      email: 'zz.scan.probe@example.org',
      addressLine1: 'Calle Zafiro 77',
      addressLine2: 'Interior Quetzal',
      city: 'Xochitepec',
      matricula: `MQ${Date.now().toString().slice(-8)}`,
    };
    const userData = {
      firstName: secret.firstName,
      middleName: secret.middleName,
      lastName: secret.lastName,
      identifyingData: { dateOfBirth: secret.dateOfBirth, ssn: secret.ssn },
      addresses: [{ type: 'home', addressLine1: secret.addressLine1, addressLine2: secret.addressLine2, city: secret.city, state: 'TX', zipCode: '78701' }],
      phoneNumbers: [{ phoneType: 'mobile', number: secret.phone }],
      email: { emailAddress: secret.email },
    };
    const plain = await app.client('acme').post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: userData }));
    expect(plain.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    const sealed = await app.client('secure').post(ENROLL, {
      ...EnrollmentRequestFactory.build(),
      encryptedUserData: await seal({ ...userData, identifyingData: { dateOfBirth: secret.dateOfBirth, ssn: uniqueSsn() } }),
    });
    expect(sealed.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    const scan = await app.client('acme').post('/v1/kycGates/scanCapture', {
      programCode: 'sandbox',
      idType: 'matricula',
      idNumber: secret.matricula,
      issuingCountry: 'MX',
      frontImage: Buffer.from('img').toString('base64'),
    });
    const matricula = await app.client('acme').post(
      ENROLL,
      EnrollmentRequestFactory.build({
        onboardingID: scan.body.onboardingID,
        encryptedUserData: {
          ...userData,
          phoneNumbers: [{ phoneType: 'mobile', number: uniquePhone() }],
          identifyingData: { dateOfBirth: secret.dateOfBirth, ssn: undefined },
        },
      }),
    );
    expect(matricula.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    const held = await app.client('acme').post(
      ENROLL,
      EnrollmentRequestFactory.build({
        encryptedUserData: {
          ...userData,
          phoneNumbers: [{ phoneType: 'home', number: uniquePhone() }],
          lastName: 'Ofachold',
          identifyingData: { dateOfBirth: secret.dateOfBirth, ssn: uniqueSsn() },
        },
      }),
    );
    expect(held.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });

    const db = await app.db();
    try {
      const tables = (await db.query(`select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE'`, [app.schema]))
        .rows as Array<{ table_name: string }>;
      expect(tables.map((t) => t.table_name)).toEqual(
        expect.arrayContaining(['users', 'user_addresses', 'user_phones', 'accounts', 'idempotency_keys', 'scan_captures']),
      );
      let dump = '';
      for (const { table_name } of tables) {
        const rows = (await db.query(`select t::text as row from "${table_name}" t`)).rows as Array<{ row: string }>;
        dump += rows.map((r) => r.row).join('\n');
      }
      expect(dump.length).toBeGreaterThan(1000);
      const lower = dump.toLowerCase();
      for (const [field, value] of Object.entries(secret)) {
        expect({ field, found: lower.includes(value.toLowerCase()) }).toEqual({ field, found: false });
      }
      // Embossed card names and stored answers are personal data too (issue 13): encrypted, never in clear.
      expect(dump).not.toContain('JESUS XIMENEZ');
      expect(lower).not.toContain('ximenez');
    } finally {
      await db.end();
    }
  });
});
