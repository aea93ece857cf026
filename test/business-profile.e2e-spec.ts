import { randomUUID } from 'node:crypto';
import { ApiBody, EnrollmentClient } from '../client/enrollment-client';
import { BusinessProfileService } from '../src/modules/business-profile/services/business-profile.service';
import { BusinessDataDto } from '../src/modules/business-profile/dtos/business-data.dto';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from './support/test-app';

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

describe('Business profile (e2e)', () => {
  let app: TestApp;
  let acme: EnrollmentClient;

  // TEMPORARY seed until POST enrollments exists.
  async function seedAccount(partnerId: string, programCode: string, accountType: 'consumer' | 'business', withProfile: boolean): Promise<string> {
    const id = randomUUID();
    const ds = app.app.get(DataSource);
    await ds.transaction(async (manager) => {
      await manager.query(
        `insert into accounts (id, partner_id, program_code, account_type, status, currency, identity_kind) values ($1,$2,$3,$4,'normal','USD','ssn')`,
        [id, partnerId, programCode, accountType],
      );
      if (withProfile) await app.app.get(BusinessProfileService).createForEnrollment(manager, id, { ...FULL_BUSINESS_DATA } as BusinessDataDto);
    });
    return id;
  }

  const path = (accountId: string, programCode = 'sandbox') => `/v1/programs/${programCode}/accounts/${accountId}/businessProfile`;
  const detail = (body: ApiBody) => body.responseDetails[0];

  beforeAll(async () => {
    app = await startTestApp('business-profile');
    acme = app.client('acme');
  });

  afterAll(async () => {
    await app.close();
  });

  it('round trip: GET, PUT a subset, GET shows the change and keeps the rest', async () => {
    const accountId = await seedAccount('acme', 'sandbox', 'business', true);
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
      accountId = await seedAccount('acme', 'sandbox', 'business', true);
    });

    const cases: Array<[string, Record<string, unknown>, number, number, number, string]> = [
      ['businessType outside the list', { businessType: 'bogus' }, 400, 600, 0, 'Invalid businessType'],
      ['businessType with the wrong case', { businessType: 'LLC' }, 400, 600, 0, 'Invalid businessType'],
      ['businessName too short', { businessName: 'A' }, 400, 400, 507, 'businessName min or max length'],
      ['businessName too long', { businessName: 'N'.repeat(101) }, 400, 400, 507, 'businessName min or max length'],
      ['businessName invalid characters', { businessName: 'Tacos <script>' }, 400, 640, 507, 'businessName contains invalid characters'],
      ['businessName with an emoji', { businessName: 'Tacos 🌮' }, 400, 640, 507, 'businessName contains invalid characters'],
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
      ['businessZipCode ZIP+4 format', { businessZipCode: '78701 1234' }, 400, 350, 0, 'Invalid Business Zip Code'],
      ['businessState length', { businessState: 'TEX' }, 400, 400, 0, 'businessState min or max length'],
      ['businessState unknown', { businessState: 'ZZ' }, 400, 780, 0, 'Invalid State'],
      ['businessTaxID length', { businessTaxID: '12345' }, 400, 400, 0, 'businessTaxID min or max length'],
      ['businessIndustry too short', { businessIndustry: '7' }, 400, 400, 0, 'businessIndustry min or max length'],
      ['businessIndustry too long', { businessIndustry: '7225131' }, 400, 400, 0, 'businessIndustry min or max length'],
      ['url format', { url: 'not a url' }, 400, 740, 0, 'Invalid URL Format'],
      ['url scheme', { url: 'ftp://tacos.example.com' }, 400, 740, 0, 'Invalid URL Format'],
      ['email format', { email: 'owner@' }, 400, 750, 0, 'Invalid Email Format'],
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
      const accountId = await seedAccount('acme', 'sandbox', 'business', true);
      for (const businessType of ['ConsumerProfileType', 'Individual', 'soleProp', 'llc', 'corp', 'partnership', 'nonprofit', 'SingleLLC', 'ProCorp']) {
        const res = await acme.put(path(accountId), { businessData: { businessType } });
        expect(res.status).toBe(200);
        expect((res.body.businessData as Record<string, unknown>).businessType).toBe(businessType);
      }
    });

    it('accepts alpha-3 countries, ZIP+4, Spanish letters and the address punctuation; clears an optional field with null', async () => {
      const accountId = await seedAccount('acme', 'sandbox', 'business', true);
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
      const accountId = await seedAccount('acme', 'sandbox', 'business', true);
      const res = await acme.put(path(accountId), { businessData: {} });
      expect(res.status).toBe(200);
      expect(res.body.businessData).toEqual({ ...FULL_BUSINESS_DATA, businessTaxID: '6789' });
    });

    it('answers plain JSON to a partner configured for encryption', async () => {
      const accountId = await seedAccount('secure', 'sandbox', 'business', true);
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
        expect(detail(get.body)).toEqual({ code: 10, subCode: 0, description: 'Account Not Found' });
        const put = await acme.put(path(id), { businessData: { businessName: 'Valid Name' } });
        expect(put.status).toBe(404);
        expect(detail(put.body)).toEqual({ code: 10, subCode: 0, description: 'Account Not Found' });
      }
    });

    it("another partner's account is indistinguishable from a missing one", async () => {
      const globexAccount = await seedAccount('globex', 'sandbox', 'business', true);
      const res = await acme.get(path(globexAccount));
      expect(res.status).toBe(404);
      expect(detail(res.body)).toEqual({ code: 10, subCode: 0, description: 'Account Not Found' });
      const put = await acme.put(path(globexAccount), { businessData: { businessName: 'Hijacked Name' } });
      expect(put.status).toBe(404);
      const owner = await app.client('globex').get(path(globexAccount));
      expect((owner.body.businessData as Record<string, unknown>).businessName).toBe(FULL_BUSINESS_DATA.businessName);
    });

    it("an account of another of the partner's programs is not found under this program", async () => {
      const liteAccount = await seedAccount('acme', 'lite', 'business', true);
      const res = await acme.get(path(liteAccount, 'sandbox'));
      expect(res.status).toBe(404);
      expect(detail(res.body)).toMatchObject({ code: 10, subCode: 0, description: 'Account Not Found' });
      expect((await acme.get(path(liteAccount, 'lite'))).status).toBe(200);
    });

    it('account without a business profile: 404/10/0 Business profile not found on GET and PUT', async () => {
      const consumer = await seedAccount('acme', 'sandbox', 'consumer', false);
      const get = await acme.get(path(consumer));
      expect(get.status).toBe(404);
      expect(detail(get.body)).toEqual({ code: 10, subCode: 0, description: 'Business profile not found' });
      const put = await acme.put(path(consumer), { businessData: { ...FULL_BUSINESS_DATA } });
      expect(put.status).toBe(404);
      expect(detail(put.body)).toEqual({ code: 10, subCode: 0, description: 'Business profile not found' });
    });

    it('needs scope business_profiles and a program of the partner', async () => {
      const accountId = await seedAccount('acme', 'sandbox', 'business', true);
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
      const accountId = await seedAccount('acme', 'sandbox', 'business', true);
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
});
