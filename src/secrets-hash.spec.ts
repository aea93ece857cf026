import { ScryptHasher } from './modules/auth/client-secret';
import { parseServiceConfig } from './config/service-config';
import { hashClientSecret } from './secrets-hash';

describe(hashClientSecret.name, () => {
  it('makes a clientSecretHash the token endpoint verifies, which production accepts (its default cost, a fresh salt)', async () => {
    const phc = hashClientSecret('s3cret-of-acme');
    expect(phc).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(hashClientSecret('s3cret-of-acme')).not.toBe(phc);
    const hasher = new ScryptHasher();
    expect(await hasher.matches('s3cret-of-acme', phc)).toBe(true);
    expect(await hasher.matches('s3cret-of-acmE', phc)).toBe(false);
    const config = {
      programs: [{ programCode: 'p1', currencies: ['USD'], kycRequired: true }],
      partners: [{ partnerId: 'a', clientId: 'a', clientSecretHash: phc, programs: ['p1'], scopes: ['enrollments'] }],
    };
    expect(() => parseServiceConfig(config, {}, { production: true })).not.toThrow();
  });
});
