import { DomainError } from '../../../common/errors/domain-error';
import { createValidationPipe } from '../../../common/validation/validation';
import { BusinessDataDto } from './business-data.dto';
import { BusinessDataUpdateDto } from './business-data-update.dto';

const VALID = {
  businessName: 'Núñez Tacos & Co.',
  businessType: 'llc',
  businessTaxID: '123456789',
  businessIndustry: '722513',
  addressLine1: '100 Main St',
  city: 'Austin',
  businessState: 'TX',
  businessZipCode: '78701',
  businessCountryCode: 'US',
};

const REQUIRED = Object.keys(VALID);

async function failure(metatype: new () => object, body: Record<string, unknown>): Promise<DomainError | undefined> {
  try {
    await createValidationPipe().transform(body, { type: 'body', metatype });
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

describe(BusinessDataDto.name, () => {
  it('accepts the required fields alone and with every optional one', async () => {
    expect(await failure(BusinessDataDto, VALID)).toBeUndefined();
    const full = {
      ...VALID,
      addressLine2: 'Suite 4',
      zipCode: '78701-1234',
      url: 'tacos.example.com',
      email: 'a@b.example',
      averageMonthlyProcessingVolume: 0,
      phoneNumber: '+15125550100',
    };
    expect(await failure(BusinessDataDto, full)).toBeUndefined();
  });

  it.each(REQUIRED)('%s missing: 400/200/0 "<property name> is required"', async (property) => {
    const body: Record<string, unknown> = { ...VALID };
    delete body[property];
    const error = await failure(BusinessDataDto, body);
    expect(error?.entry).toMatchObject({ http: 400, code: 200, subCode: 0 });
    expect(error?.detail()).toMatchObject({ description: `${property} is required`, field: property });
  });

  it('an invalid businessType at enrollment reads "Invalid Business Type"', async () => {
    const error = await failure(BusinessDataDto, { ...VALID, businessType: 'trust' });
    expect(error?.detail()).toEqual({ code: 600, subCode: 0, description: 'Invalid Business Type', field: 'businessType' });
  });

  it('the same value on the update reads "Invalid businessType"', async () => {
    const error = await failure(BusinessDataUpdateDto, { businessType: 'trust' });
    expect(error?.detail()).toEqual({ code: 600, subCode: 0, description: 'Invalid businessType', field: 'businessType' });
  });

  it.each<[string, Record<string, unknown>, number, number]>([
    ['businessName length', { businessName: 'X' }, 400, 507],
    ['businessName characters', { businessName: 'Tacos | Co' }, 640, 507],
    ['city length', { city: 'x'.repeat(26) }, 400, 504],
    ['city characters', { city: 'Austin;' }, 640, 504],
    ['addressLine1 length', { addressLine1: 'x'.repeat(41) }, 400, 505],
    ['addressLine1 characters', { addressLine1: '1 "Main"' }, 640, 505],
    ['addressLine2 length', { addressLine2: 'x'.repeat(41) }, 400, 506],
    ['addressLine2 characters', { addressLine2: 'Apt {4}' }, 640, 506],
    ['zipCode length', { zipCode: '787' }, 400, 0],
    ['businessState length', { businessState: 'T' }, 400, 0],
    ['businessZipCode length', { businessZipCode: '787011234' }, 400, 0],
    ['businessTaxID length', { businessTaxID: '1234567890' }, 400, 0],
    ['businessIndustry length', { businessIndustry: '1234567' }, 400, 0],
    ['businessZipCode format', { businessZipCode: '7870A' }, 350, 0],
    ['url', { url: 'http://' }, 740, 0],
    ['email', { email: 'no-at-sign' }, 750, 0],
    ['country', { businessCountryCode: 'ZZZ' }, 600, 0],
    ['processing volume', { averageMonthlyProcessingVolume: -0.01 }, 300, 0],
  ])('%s', async (_name, change, code, subCode) => {
    const error = await failure(BusinessDataDto, { ...VALID, ...change });
    expect(error?.detail()).toMatchObject({ code, subCode });
    expect(error?.entry.http).toBe(400);
  });

  // README "Decisions": a text field sent as a number, boolean or array is 400/100/5 naming the field, not its length row.
  it.each<[string, Record<string, unknown>]>([
    ['businessName', { businessName: 123 }],
    ['businessTaxID', { businessTaxID: 123456789 }],
    ['businessIndustry', { businessIndustry: 722513 }],
    ['addressLine1', { addressLine1: ['100 Main St'] }],
    ['addressLine2', { addressLine2: true }],
    ['city', { city: 12 }],
    ['businessState', { businessState: 12 }],
    ['zipCode', { zipCode: 78701 }],
    ['businessZipCode', { businessZipCode: 78701 }],
    ['businessCountryCode', { businessCountryCode: 1 }],
    ['url', { url: 1 }],
    ['email', { email: false }],
  ])('%s sent as another JSON type than text: 400/100/5 naming it, on enrollment and update alike', async (field, change) => {
    for (const metatype of [BusinessDataDto, BusinessDataUpdateDto]) {
      const error = await failure(metatype, { ...(metatype === BusinessDataDto ? VALID : {}), ...change });
      expect({ field, detail: error?.detail() }).toMatchObject({ field, detail: { code: 100, subCode: 5, field } });
    }
  });

  it('every field of the update is optional', async () => {
    expect(await failure(BusinessDataUpdateDto, {})).toBeUndefined();
  });
});
