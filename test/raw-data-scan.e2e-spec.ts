import { randomBytes } from 'node:crypto';
import { copyEveryTable } from './support/copy-out';
import { EnrollmentRequestFactory, personalUserData, uniqueItin, uniquePhone, uniqueSsn, validBusinessData } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

/**
 * Issue 13 (CONTRACT sections 5 and 15): after enrollments, user updates (address, phone, email), a
 * business profile and an ITIN, every column of every table, read as text with `COPY … TO STDOUT`,
 * holds no plaintext name, address line, email, phone, SSN, ITIN, Matricula number, tax id or date
 * of birth, case-insensitive: embossed names, stored answers and the outbox included.
 */
describe('Raw-data scan: no personal data in clear anywhere in the database (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('raw_data_scan');
  });

  afterAll(async () => {
    await app.close();
  });

  it('enrollments, user updates, a business profile and an ITIN leave no plaintext in any column', async () => {
    const tag = randomBytes(3).toString('hex');
    // Distinctive values: a hit can only come from this test's requests.
    const secrets: Record<string, string> = {
      firstName: 'Quirinoscan',
      middleName: 'Wendelscan',
      lastName: 'Zyllabescan',
      dateOfBirth: '1979-08-23',
      ssn: uniqueSsn(),
      phone: uniquePhone(),
      email: `scan.probe.${tag}@example.org`,
      addressLine1: 'Calle Obsidiana 401',
      addressLine2: 'Depto Vermilion',
      city: 'Zacualtipan',
      newPhone: uniquePhone(),
      newEmail: `moved.probe.${tag}@example.net`,
      mailingLine1: 'Apartado Turquesa 88',
      businessFirstName: 'Ottokarscan',
      businessTaxID: `9${String(Date.now()).slice(-8)}`,
      businessLine1: 'Avenida Coralina 12',
      newBusinessLine1: 'Boulevard Jacinto 7',
      newBusinessTaxID: `8${String(Date.now()).slice(-8)}`,
      matricula: `MZ${randomBytes(4).toString('hex').toUpperCase()}`,
      matriculaFirstName: 'Fulgenciascan',
      itin: uniqueItin(),
    };
    const userData = personalUserData({
      firstName: secrets.firstName,
      middleName: secrets.middleName,
      lastName: secrets.lastName,
      dateOfBirth: secrets.dateOfBirth,
      ssn: secrets.ssn,
      addressLine1: secrets.addressLine1,
      addressLine2: secrets.addressLine2,
      city: secrets.city,
      phone: secrets.phone,
      email: secrets.email,
    });
    const ok = (res: { status: number; body: { responseDetails: Array<{ code: number; subCode: number }> } }, what: string) =>
      expect({ what, status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ what, status: 200, detail: { code: 0, subCode: 0 } });

    // A consumer, through both kinds of partner, then its user updated.
    const acme = app.client('acme');
    const consumer = await acme.post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: userData }));
    ok(consumer, 'consumer');
    const accountId = (consumer.body.account as { accountIdentifier: string }).accountIdentifier;
    const userId = (consumer.body.user as { userIdentifier: string }).userIdentifier;
    const userPath = `/v1/programs/sandbox/accounts/${accountId}/users/${userId}`;
    ok(
      await acme.put(userPath, {
        encryptedUserData: {
          address: {
            type: 'mailing',
            isDefault: false,
            addressLine1: secrets.mailingLine1,
            city: secrets.city,
            state: 'TX',
            zipCode: '78701',
            countryCode: 'US',
          },
        },
      }),
      'address',
    );
    ok(await acme.put(userPath, { encryptedUserData: { phoneNumber: { phoneType: 'home', number: secrets.newPhone } } }), 'phone');
    ok(await acme.put(userPath, { encryptedUserData: { email: { emailAddress: secrets.newEmail } } }), 'email');
    ok(
      await app.client('secure').post(
        ENROLL,
        EnrollmentRequestFactory.build({
          encryptedUserData: {
            ...userData,
            identifyingData: { dateOfBirth: secrets.dateOfBirth, ssn: uniqueSsn() },
            phoneNumbers: [{ phoneType: 'mobile', number: uniquePhone() }],
          },
        }),
      ),
      'encryption partner',
    );

    // A small business, then its profile changed.
    const business = await acme.post(
      ENROLL,
      EnrollmentRequestFactory.business({
        encryptedUserData: {
          firstName: secrets.businessFirstName,
          lastName: secrets.lastName,
          businessData: validBusinessData({ businessTaxID: secrets.businessTaxID, addressLine1: secrets.businessLine1 }),
        },
      }),
    );
    ok(business, 'business');
    const businessAccount = (business.body.account as { accountIdentifier: string }).accountIdentifier;
    ok(
      await acme.put(`/v1/programs/sandbox/accounts/${businessAccount}/businessProfile`, {
        businessData: { addressLine1: secrets.newBusinessLine1, businessTaxID: secrets.newBusinessTaxID },
      }),
      'business profile',
    );

    // A Matricula enrollment, then its ITIN.
    const scan = await acme.post('/v1/kycGates/scanCapture', {
      programCode: 'sandbox',
      idType: 'matricula',
      idNumber: secrets.matricula,
      issuingCountry: 'MX',
      frontImage: randomBytes(48).toString('base64'),
    });
    expect(scan.status).toBe(200);
    const matricula = await acme.post(
      ENROLL,
      EnrollmentRequestFactory.build({
        onboardingID: scan.body.onboardingID,
        encryptedUserData: { firstName: secrets.matriculaFirstName, identifyingData: { ssn: undefined, matriculaId: secrets.matricula } },
      }),
    );
    ok(matricula, 'matricula');
    const m = {
      account: (matricula.body.account as { accountIdentifier: string }).accountIdentifier,
      user: (matricula.body.user as { userIdentifier: string }).userIdentifier,
    };
    ok(await acme.post(`/v1/accounts/${m.account}/users/${m.user}/identity`, { itin: secrets.itin }), 'itin');

    const db = await app.db();
    let tables: Record<string, string>;
    try {
      tables = await copyEveryTable(db);
    } finally {
      await db.end();
    }
    expect(Object.keys(tables)).toEqual(
      expect.arrayContaining([
        'users',
        'user_addresses',
        'user_phones',
        'payment_instruments',
        'business_profiles',
        'idempotency_keys',
        'outbox_events',
        'scan_captures',
      ]),
    );
    expect(tables.users.split('\n').length).toBeGreaterThan(4);
    // The scan does see what is stored in clear (so a miss below means encrypted, not unread).
    expect(tables.accounts).toContain(accountId);
    expect(tables.users).toContain(userId);
    const found: string[] = [];
    for (const [table, text] of Object.entries(tables)) {
      const lower = text.toLowerCase();
      for (const [field, value] of Object.entries(secrets)) {
        // Digits also in their usual punctuated forms (SSN 123-45-6789, a date as 08/23/1979).
        const forms = [value, value.replace(/^(\d{3})(\d{2})(\d{4})$/, '$1-$2-$3'), value.replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$2/$3/$1')];
        if (forms.some((form) => lower.includes(form.toLowerCase()))) found.push(`${table}.${field}`);
      }
      // Embossed names are upper-cased names.
      if (lower.includes('zyllabescan')) found.push(`${table}.embossedName`);
    }
    expect(found).toEqual([]);
  });
});
