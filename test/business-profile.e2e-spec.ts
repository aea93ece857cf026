import { randomUUID } from 'node:crypto';
import { ApiBody, EnrollmentClient } from '../client/enrollment-client';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { PartnerName, startTestApp, TestApp, linked } from './support/test-app';

const FULL_BUSINESS_DATA = {
  businessName: 'Núñez Tacos & Co.',
  businessType: 'llc',
  businessTaxID: '123456789',
  businessIndustry: '722513',
  addressLine1: '100 Main St',
  addressLine2: 'Suite 4',
  city: 'Austin',
  businessState: 'TX',
  businessZipCode: '78701',
  businessCountryCode: 'US',
  url: 'https://tacos.example.com',
  email: 'owner@tacos.example.com',
  averageMonthlyProcessingVolume: 25000,
};

const detail = (body: ApiBody) => body.responseDetails[0];

describe('Business profile (e2e)', () => {
  let app: TestApp;
  let acme: EnrollmentClient;

  interface Enrolled {
    accountId: string;
    body: ApiBody;
  }

  async function enroll(partner: PartnerName, request: Record<string, unknown>, programCode = 'sandbox'): Promise<Enrolled> {
    const res = await app.client(partner).post(`/v1/programs/${programCode}/enrollments`, request);
    if (res.status !== 200 || detail(res.body).code !== 0) throw new Error(`enrollment failed: ${res.status} ${JSON.stringify(res.body.responseDetails)}`);
    return { accountId: (res.body.account as { accountIdentifier: string }).accountIdentifier, body: res.body };
  }

  /** A business account enrolled with FULL_BUSINESS_DATA (tax id ending 6789). */
  async function businessAccount(partner: PartnerName = 'acme'): Promise<string> {
    const request = EnrollmentRequestFactory.business({ encryptedUserData: { businessData: { ...FULL_BUSINESS_DATA } } });
    return (await enroll(partner, request)).accountId;
  }

  const path = (accountId: string, programCode = 'sandbox') => `/v1/programs/${programCode}/accounts/${accountId}/businessProfile`;

  beforeAll(async () => {
    app = await startTestApp('business-profile');
    acme = app.client('acme');
  });

  afterAll(async () => {
    await app.close();
  });

  it("every code the update answers for a field is among the operation's documented 400 examples (OpenAPI, and so the SDK)", async () => {
    const accountId = await businessAccount();
    const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, { put: { responses: Record<string, { content: Record<string, { examples: Record<string, { $ref: string }> }> }> } }>;
      components: { examples: Record<string, { value: { responseDetails: Array<{ code: number; subCode: number }> } }> };
    };
    const examples =
      document.paths['/v1/programs/{programCode}/accounts/{accountIdentifier}/businessProfile'].put.responses['400'].content['application/json'].examples;
    const documented = new Set(
      Object.values(examples).map((example) => {
        const lead = document.components.examples[example.$ref.split('/').pop() as string].value.responseDetails[0];
        return `${lead.code}/${lead.subCode}`;
      }),
    );
    for (const businessData of [
      { city: 'Aus$tin' },
      { addressLine1: '1 Main <St>' },
      { addressLine2: 'Ste @4' },
      { businessState: 'ZZ' },
      { phoneNumber: '12' },
      { businessTaxID: '12345678a' },
      { businessName: 'A' },
      { businessName: 'Tacos <LLC>' },
    ]) {
      const res = await acme.put(path(accountId), { businessData }, { noRetry: true });
      expect(res.status).toBe(400);
      const lead = detail(res.body);
      expect({ businessData, documented: documented.has(`${lead.code}/${lead.subCode}`) }).toEqual({ businessData, documented: true });
    }
  });

  it('round trip: GET, PUT a subset, GET shows the change and keeps the rest', async () => {
    const accountId = await businessAccount();
    const before = await acme.get(path(accountId));
    expect(before.status).toBe(200);
    expect(detail(before.body)).toEqual({ code: 0, subCode: 0, description: 'Success' });
    expect(before.body.businessData).toEqual({ ...FULL_BUSINESS_DATA, businessTaxID: '6789' });

    const put = await acme.put(path(accountId), { businessData: { businessName: 'Nuevo Nombre LLC', city: 'Dallas', businessTaxID: '987654321' } });
    expect(put.status).toBe(200);
    expect(detail(put.body)).toMatchObject({ code: 0, subCode: 0 });
    expect(put.body.businessData).toEqual({ ...FULL_BUSINESS_DATA, businessName: 'Nuevo Nombre LLC', city: 'Dallas', businessTaxID: '4321' });

    const after = await acme.get(path(accountId));
    expect(after.body.businessData).toEqual(put.body.businessData);
  });

  describe('PUT validation (enrollment rules; nothing stored on failure)', () => {
    let accountId: string;
    beforeAll(async () => {
      accountId = await businessAccount();
    });

    const cases: Array<[string, Record<string, unknown>, number, number, number, string]> = [
      ['businessType outside the list', { businessType: 'bogus' }, 400, 600, 0, 'Invalid businessType'],
      ['businessType with the wrong case', { businessType: 'LLC' }, 400, 600, 0, 'Invalid businessType'],
      ['businessName too short', { businessName: 'A' }, 400, 400, 507, 'businessName min or max length'],
      ['businessName too long', { businessName: 'N'.repeat(101) }, 400, 400, 507, 'businessName min or max length'],
      ['businessName invalid characters', { businessName: 'Tacos <script>' }, 400, 640, 507, 'businessName contains invalid characters'],
      ['businessName with an emoji', { businessName: 'Tacos 🌮' }, 400, 640, 507, 'businessName contains invalid characters'],
      // Allowed characters only, but no letter or digit: no name to emboss on the next card.
      ['businessName of spaces only', { businessName: '   ' }, 400, 640, 507, 'businessName contains invalid characters'],
      ['businessName of separators only', { businessName: '&-.' }, 400, 640, 507, 'businessName contains invalid characters'],
      ['city of spaces only', { city: '  ' }, 400, 640, 504, 'city contains invalid characters'],
      ['city too long', { city: 'C'.repeat(26) }, 400, 400, 504, 'city min or max length'],
      ['city invalid characters', { city: 'Aus$tin' }, 400, 640, 504, 'city contains invalid characters'],
      ['addressLine1 too short', { addressLine1: '1' }, 400, 400, 505, 'addressLine1 min or max length'],
      ['addressLine1 too long', { addressLine1: 'A'.repeat(41) }, 400, 400, 505, 'addressLine1 min or max length'],
      ['addressLine1 invalid characters', { addressLine1: '1 Main; St' }, 400, 640, 505, 'addressLine1 contains invalid characters'],
      ['addressLine2 too long', { addressLine2: 'B'.repeat(41) }, 400, 400, 506, 'addressLine2 min or max length'],
      ['addressLine2 invalid characters', { addressLine2: 'Suite @4' }, 400, 640, 506, 'addressLine2 contains invalid characters'],
      ['zipCode length', { zipCode: '1234' }, 400, 400, 0, 'zipCode min or max length'],
      ['businessZipCode length', { businessZipCode: '787011' }, 400, 400, 0, 'businessZipCode min or max length'],
      ['businessZipCode format', { businessZipCode: 'ABCDE' }, 400, 350, 0, 'Invalid Business Zip Code'],
      ['zipCode format', { zipCode: 'ABCDE' }, 400, 350, 0, 'Invalid Business Zip Code'],
      ['businessZipCode ZIP+4 format', { businessZipCode: '78701 1234' }, 400, 350, 0, 'Invalid Business Zip Code'],
      ['businessState length', { businessState: 'TEX' }, 400, 400, 0, 'businessState min or max length'],
      ['businessState unknown', { businessState: 'ZZ' }, 400, 780, 0, 'Invalid State'],
      ['businessTaxID length', { businessTaxID: '12345' }, 400, 400, 0, 'businessTaxID min or max length'],
      ['businessIndustry too short', { businessIndustry: '7' }, 400, 400, 0, 'businessIndustry min or max length'],
      ['businessIndustry too long', { businessIndustry: '7225131' }, 400, 400, 0, 'businessIndustry min or max length'],
      ['url format', { url: 'not a url' }, 400, 740, 0, 'Invalid URL Format'],
      ['url scheme', { url: 'ftp://tacos.example.com' }, 400, 740, 0, 'Invalid URL Format'],
      ['email format', { email: 'owner@' }, 400, 750, 0, 'Invalid Email Format'],
      ['phoneNumber format', { phoneNumber: '12345' }, 400, 770, 0, 'Invalid Phone Number'],
      ['country code unknown', { businessCountryCode: 'XX' }, 400, 600, 0, 'Invalid Business Country Code'],
      ['country code numeric', { businessCountryCode: '840' }, 400, 600, 0, 'Invalid Business Country Code'],
      ['processing volume negative', { averageMonthlyProcessingVolume: -1 }, 400, 300, 0, 'Invalid Avg Monthly Processing Volume'],
      ['processing volume not a number', { averageMonthlyProcessingVolume: '1000' }, 400, 300, 0, 'Invalid Avg Monthly Processing Volume'],
      ['required field sent as null', { businessName: null }, 400, 200, 0, 'businessName is required'],
      ['unknown property', { businessOwner: 'x' }, 400, 100, 2, 'property businessData.businessOwner should not exist'],
    ];

    it.each(cases)('%s', async (_name, businessData, http, code, subCode, description) => {
      const res = await acme.put(path(accountId), { businessData: { ...businessData } });
      expect(res.status).toBe(http);
      expect(detail(res.body)).toMatchObject({ code, subCode, description });
      const stored = await acme.get(path(accountId));
      expect(stored.body.businessData).toEqual({ ...FULL_BUSINESS_DATA, businessTaxID: '6789' });
    });

    it("documents in the PUT's 400 exactly the rows of its own these cases answer (no zip row but 350/0 Invalid Business Zip Code)", async () => {
      type Example = { value?: ApiBody; $ref?: string };
      const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
        paths: Record<string, { put: { responses: Record<string, { content: { 'application/json': { examples: Record<string, Example> } } }> } }>;
        components: { examples: Record<string, Example> };
      };
      const listed =
        document.paths['/v1/programs/{programCode}/accounts/{accountIdentifier}/businessProfile'].put.responses['400'].content['application/json'].examples;
      const documented = Object.values(listed).map((example) =>
        detail((example.$ref ? document.components.examples[example.$ref.split('/').pop() as string] : example).value as ApiBody),
      );
      // A field's own rows: not the body's and headers' (code 100), nor a row that names the field (<property name> is required, … min or max length).
      const own = (code: number, description: string) => code !== 100 && !description.includes('<property name>');
      const rows = (list: Array<{ code: number; subCode: number; description: string }>) =>
        [
          ...new Set(
            list.filter(({ code, description }) => own(code, description)).map(({ code, subCode, description }) => `${code}/${subCode} ${description}`),
          ),
        ].sort();
      const answered = cases.filter(([, , , code, subCode]) => !(code === 200 || (code === 400 && subCode === 0)));
      expect(rows(documented)).toEqual(rows(answered.map(([, , , code, subCode, description]) => ({ code, subCode, description }))));
    });

    it('names the JSON path of the failed field', async () => {
      const res = await acme.put(path(accountId), { businessData: { city: 'C'.repeat(26) } });
      expect(detail(res.body).field).toBe('businessData.city');
    });

    it('lists one detail per failed field', async () => {
      const res = await acme.put(path(accountId), { businessData: { businessType: 'bogus', url: 'nope' } });
      expect(res.status).toBe(400);
      expect(res.body.responseDetails.map((d) => [d.code, d.field])).toEqual(
        expect.arrayContaining([
          [600, 'businessData.businessType'],
          [740, 'businessData.url'],
        ]),
      );
    });

    it('requires the businessData node', async () => {
      const res = await acme.put(path(accountId), {});
      expect(res.status).toBe(400);
      expect(detail(res.body)).toMatchObject({ code: 200, subCode: 0, description: 'businessData is required' });
    });

    it('refuses a property beside businessData', async () => {
      const res = await acme.put(path(accountId), { businessData: {}, status: 'normal' });
      expect(res.status).toBe(400);
      expect(detail(res.body)).toMatchObject({ code: 100, subCode: 2 });
    });
  });

  describe('PUT accepted forms', () => {
    it('accepts every listed businessType', async () => {
      const accountId = await businessAccount();
      for (const businessType of ['ConsumerProfileType', 'Individual', 'soleProp', 'llc', 'corp', 'partnership', 'nonprofit', 'SingleLLC', 'ProCorp']) {
        const res = await acme.put(path(accountId), { businessData: { businessType } });
        expect(res.status).toBe(200);
        expect((res.body.businessData as Record<string, unknown>).businessType).toBe(businessType);
      }
    });

    it('accepts alpha-3 countries, ZIP+4, Spanish letters and the address punctuation; clears an optional field with null', async () => {
      const accountId = await businessAccount();
      const res = await acme.put(path(accountId), {
        businessData: {
          businessCountryCode: 'MEX',
          businessZipCode: '78701-1234',
          zipCode: '78702',
          businessName: "Peña's Café #2, A/B & Co.",
          addressLine1: '12-B Calle Ñandú',
          url: null,
          phoneNumber: '5125550100',
        },
      });
      expect(res.status).toBe(200);
      const data = res.body.businessData as Record<string, unknown>;
      expect(data).toMatchObject({ businessCountryCode: 'MEX', businessZipCode: '78701-1234', zipCode: '78702', businessName: "Peña's Café #2, A/B & Co." });
      expect(data.url).toBeUndefined();
      expect(data.email).toBe(FULL_BUSINESS_DATA.email);
    });

    it('an empty subset changes nothing', async () => {
      const accountId = await businessAccount();
      const res = await acme.put(path(accountId), { businessData: {} });
      expect(res.status).toBe(200);
      expect(res.body.businessData).toEqual({ ...FULL_BUSINESS_DATA, businessTaxID: '6789' });
    });

    it('answers plain JSON to a partner configured for encryption', async () => {
      const accountId = await businessAccount('secure');
      const secure = app.client('secure');
      const res = await secure.get(path(accountId));
      expect(res.status).toBe(200);
      expect(res.body.businessData).toEqual({ ...FULL_BUSINESS_DATA, businessTaxID: '6789' });
    });
  });

  describe('not found and tenancy', () => {
    it('unknown account: 404/10/0 Account Not Found on GET and PUT', async () => {
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const get = await acme.get(path(id));
        expect(get.status).toBe(404);
        expect(detail(get.body)).toEqual(linked({ code: 10, subCode: 0, description: 'Account Not Found' }));
        const put = await acme.put(path(id), { businessData: { businessName: 'Valid Name' } });
        expect(put.status).toBe(404);
        expect(detail(put.body)).toEqual(linked({ code: 10, subCode: 0, description: 'Account Not Found' }));
      }
    });

    it("another partner's account is indistinguishable from a missing one", async () => {
      const globexAccount = await businessAccount('globex');
      const res = await acme.get(path(globexAccount));
      expect(res.status).toBe(404);
      expect(detail(res.body)).toEqual(linked({ code: 10, subCode: 0, description: 'Account Not Found' }));
      const put = await acme.put(path(globexAccount), { businessData: { businessName: 'Hijacked Name' } });
      expect(put.status).toBe(404);
      const owner = await app.client('globex').get(path(globexAccount));
      expect((owner.body.businessData as Record<string, unknown>).businessName).toBe(FULL_BUSINESS_DATA.businessName);
    });

    it("an account of another of the partner's programs is not found under this program", async () => {
      const liteAccount = (await enroll('acme', EnrollmentRequestFactory.build(), 'lite')).accountId;
      const res = await acme.get(path(liteAccount, 'sandbox'));
      expect(res.status).toBe(404);
      expect(detail(res.body)).toEqual(linked({ code: 10, subCode: 0, description: 'Account Not Found' }));
      // Under its own program the account is found; it simply has no business profile.
      const own = await acme.get(path(liteAccount, 'lite'));
      expect(detail(own.body)).toEqual(linked({ code: 10, subCode: 0, description: 'Business profile not found' }));
    });

    it("account without a business profile: GET 404/10/0 Business profile not found; PUT 404/10/0 Account Not Found (SERVICE.md's PUT row)", async () => {
      const consumer = (await enroll('acme', EnrollmentRequestFactory.build())).accountId;
      const get = await acme.get(path(consumer));
      expect(get.status).toBe(404);
      expect(detail(get.body)).toEqual(linked({ code: 10, subCode: 0, description: 'Business profile not found' }));
      const put = await acme.put(path(consumer), { businessData: { ...FULL_BUSINESS_DATA } });
      expect(put.status).toBe(404);
      expect(detail(put.body)).toEqual(linked({ code: 10, subCode: 0, description: 'Account Not Found' }));
    });

    it('needs scope business_profiles and a program of the partner', async () => {
      const accountId = await businessAccount();
      const narrow = await app.client('acme', { scope: 'users' }).get(path(accountId));
      expect(narrow.status).toBe(403);
      expect(detail(narrow.body)).toMatchObject({ code: 403, subCode: 1 });
      const otherProgram = await acme.get(path(accountId, 'other'));
      expect(otherProgram.status).toBe(403);
      expect(detail(otherProgram.body)).toMatchObject({ code: 403, subCode: 2 });
    });
  });

  describe('at rest', () => {
    it('stores businessTaxID and contact data encrypted; only the last 4 in clear', async () => {
      const accountId = await businessAccount();
      await acme.put(path(accountId), { businessData: { businessTaxID: '555443333', addressLine1: '77 Secret Lane' } });
      const db = await app.db();
      try {
        const { rows } = await db.query('select * from business_profiles where account_id = $1', [accountId]);
        const text = JSON.stringify(rows[0]);
        expect(rows[0].business_tax_id_last4).toBe('3333');
        expect(rows[0].business_tax_id_enc).toMatch(/^v1\./);
        expect(text).not.toContain('555443333');
        expect(text).not.toContain('77 Secret Lane');
        expect(text).not.toContain(FULL_BUSINESS_DATA.email);
        expect(rows[0].business_name).toBe(FULL_BUSINESS_DATA.businessName);
      } finally {
        await db.end();
      }
    });
  });

  describe('businessData at enrollment (the same DTO, all-required variant)', () => {
    // The factory deep-merges: an undefined value removes the field from its valid businessData.
    const enrollWith = (businessData: Record<string, unknown>) =>
      acme.post('/v1/programs/sandbox/enrollments', EnrollmentRequestFactory.business({ encryptedUserData: { businessData } }));

    it.each<[string, Record<string, unknown>, number, number, string, string]>([
      ['a required field missing', { ...FULL_BUSINESS_DATA, businessName: undefined }, 200, 0, 'businessName is required', 'businessName'],
      ['businessType outside the list', { ...FULL_BUSINESS_DATA, businessType: 'trust' }, 600, 0, 'Invalid Business Type', 'businessType'],
      ['businessName too long', { ...FULL_BUSINESS_DATA, businessName: 'N'.repeat(101) }, 400, 507, 'businessName min or max length', 'businessName'],
      ['businessZipCode format', { ...FULL_BUSINESS_DATA, businessZipCode: '7870A' }, 350, 0, 'Invalid Business Zip Code', 'businessZipCode'],
      ['country code', { ...FULL_BUSINESS_DATA, businessCountryCode: 'QQ' }, 600, 0, 'Invalid Business Country Code', 'businessCountryCode'],
      [
        'processing volume',
        { ...FULL_BUSINESS_DATA, averageMonthlyProcessingVolume: -5 },
        300,
        0,
        'Invalid Avg Monthly Processing Volume',
        'averageMonthlyProcessingVolume',
      ],
    ])('%s', async (_name, businessData, code, subCode, description, property) => {
      const res = await enrollWith(businessData);
      expect(res.status).toBe(400);
      expect(detail(res.body)).toEqual(linked({ code, subCode, description, field: `encryptedUserData.businessData.${property}` }));
    });
  });

  it('a card replaced after a businessName change carries the new name; the current card keeps its name', async () => {
    const enrolled = await enroll('acme', EnrollmentRequestFactory.business({ encryptedUserData: { businessData: { ...FULL_BUSINESS_DATA } } }));
    const [card] = enrolled.body.paymentInstruments as Array<{ paymentIdentifier: string; embossedBusinessName?: string }>;
    expect(card?.embossedBusinessName).toBe('NUNEZ TACOS & CO.');

    const put = await acme.put(path(enrolled.accountId), { businessData: { businessName: 'Peña Nueva LLC' } });
    expect(put.status).toBe(200);
    const unchanged = await acme.get(`/v1/programs/sandbox/enrollments/accounts/${enrolled.accountId}`);
    expect((unchanged.body.paymentInstruments as Array<{ embossedBusinessName?: string }>).map((c) => c.embossedBusinessName)).toEqual(['NUNEZ TACOS & CO.']);

    const replaced = await app.client('care').post(`/v1/care/accounts/${enrolled.accountId}/paymentInstruments/${card?.paymentIdentifier}/replace`, {});
    expect(replaced.status).toBe(200);
    const cards = replaced.body.paymentInstruments as Array<{ paymentIdentifier: string; status: string; embossedBusinessName?: string }>;
    expect(cards.find((c) => c.paymentIdentifier === card?.paymentIdentifier)).toMatchObject({ status: 'replaced', embossedBusinessName: 'NUNEZ TACOS & CO.' });
    const fresh = cards.filter((c) => c.paymentIdentifier !== card?.paymentIdentifier);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]?.embossedBusinessName).toBe('PENA NUEVA LLC');
  });
});
