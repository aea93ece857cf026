import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AppConfig } from './app-config';
import { DEFAULT_LIMITS, parseServiceConfig, ServiceConfigError } from './service-config';
import { KeyStore } from '../infrastructure/crypto/key-store';

const program = { programCode: 'p1', currencies: ['USD'], kycRequired: true };
const partner = { partnerId: 'a', clientId: 'a', clientSecret: 's', programs: ['p1'], scopes: ['enrollments'] };
const PHC = '$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA==$Q6qkC3sWERIrb5yyoOfOj7Ab5Ilz5bBt0GjjqV2qObw=';
const rotating = (fields: Record<string, unknown>) => ({ ...partner, clientSecret: undefined, ...fields });

describe(parseServiceConfig.name, () => {
  it('applies SERVICE.md limits where the file gives none, and keeps overrides', () => {
    const sut = parseServiceConfig({ programs: [{ ...program, limits: { consumer: { phone: [3, 5] } } }], partners: [partner] });
    const limits = sut.programs.get('p1')?.limits;
    expect(limits?.consumer).toEqual({ ssn: [1, 3], itin: [1, 3], phone: [3, 5] });
    expect(limits?.business).toEqual(DEFAULT_LIMITS.business);
  });

  it.each([
    [{ programs: [], partners: [] }, /programs/],
    [{ programs: [{ ...program, currencies: ['XYZ'] }], partners: [] }, /XYZ is not an ISO 4217 code/],
    [{ programs: [program], partners: [{ ...partner, programs: ['nope'] }] }, /unknown program nope/],
    [{ programs: [program], partners: [{ ...partner, scopes: ['admin'] }] }, /scopes/],
    [{ programs: [program], partners: [partner, { ...partner, partnerId: 'b' }] }, /duplicate clientId/],
    [{ programs: [program], partners: [{ ...partner, clientSecret: undefined }] }, /clientSecret or clientSecretHash/],
    [{ programs: [program], partners: [{ ...partner, extra: 1 }] }, /extra/],
    [{ programs: [{ ...program, limits: { consumer: { ssn: [4, 2] } } }], partners: [] }, /active <= lifetime/],
    [{ programs: [program], partners: [rotating({ clientSecrets: ['x', 'y', 'z'] })] }, /clientSecrets/],
    [{ programs: [program], partners: [rotating({ clientSecrets: [] })] }, /clientSecrets/],
    [{ programs: [program], partners: [rotating({ clientSecrets: ['x', ''] })] }, /clientSecrets/],
    [{ programs: [program], partners: [{ ...partner, clientSecrets: ['x'] }] }, /clientSecret or clientSecrets, not both/],
    [{ programs: [program], partners: [rotating({ clientSecretHash: PHC, clientSecretHashes: [PHC] })] }, /not both/],
    [
      { programs: [program], partners: [rotating({ clientSecretHashes: [PHC, 'plain'] })] },
      /partners\[0\] \(a\)\.clientSecretHashes\[1\] must be a scrypt PHC/,
    ],
    [{ programs: [program], partners: [rotating({ clientSecrets: ['x', 'y'], clientSecretHash: PHC })] }, /at most 2/],
    // A hash scrypt would compute zero or a few bytes of: any secret, or one in a few hundred, would match.
    [
      { programs: [program], partners: [rotating({ clientSecretHash: PHC.replace(/\$[^$]*$/, '$') })] },
      /clientSecretHash needs a salt of at least 16 bytes and a hash of at least 32/,
    ],
    [{ programs: [program], partners: [rotating({ clientSecretHash: PHC.replace(/\$[^$]*$/, '$AA==') })] }, /clientSecretHash needs a salt/],
    [{ programs: [program], partners: [rotating({ clientSecretHash: PHC.replace('c2FsdHNhbHRzYWx0c2FsdA==', 'c2FsdA==') })] }, /clientSecretHash needs a salt/],
    [
      { programs: [program], partners: [rotating({ clientSecretHash: PHC.replace(/\$[^$]*$/, '$not*base64') })] },
      /clientSecretHash must carry its salt and hash in base64/,
    ],
    [{ programs: [program], partners: [rotating({ clientSecretHash: PHC.replace('r=8', 'r=0') })] }, /clientSecretHash has scrypt parameters out of range/],
  ])('refuses an invalid file with a message naming the entry (%#)', (raw, message) => {
    expect(() => parseServiceConfig(raw)).toThrow(message);
  });

  it("refuses a partner's encryption key that is not a P-256 public key for encryption, naming the entry (every sealed answer would be a 500)", () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const withKey = (publicKeyJwk: Record<string, unknown>) => () =>
      parseServiceConfig({ programs: [program], partners: [{ ...partner, encryption: { publicKeyJwk } }] }, {});
    expect(withKey(jwk)).not.toThrow();
    expect(withKey({ ...jwk, kid: 'partner-key-1', use: 'enc' })).not.toThrow();
    for (const [bad, message] of [
      [{ ...jwk, y: jwk.x }, 'not a valid P-256 public key'],
      [{ ...jwk, x: 'AAAA' }, 'not a valid P-256 public key'],
      [privateKey.export({ format: 'jwk' }), 'a public key: it carries the private d'],
      [{ ...jwk, use: 'sig' }, 'use "enc"'],
      [{ ...jwk, crv: 'P-384' }, 'must be an EC P-256 public key'],
      // jose imports an ECDH public key with no key_ops (WebCrypto gives it no usages): any list made every sealing fail.
      [{ ...jwk, key_ops: ['deriveBits'] }, 'must not list key_ops'],
      [{ ...jwk, kid: 5 }, 'kid must be a string'],
    ] as Array<[Record<string, unknown>, string]>) {
      expect(withKey(bad)).toThrow(ServiceConfigError);
      expect(withKey(bad)).toThrow(`partners[0] (a).encryption.publicKeyJwk`);
      expect(withKey(bad)).toThrow(message);
    }
  });

  it('resolves env: secrets and refuses missing ones', () => {
    const ok = parseServiceConfig({ programs: [program], partners: [{ ...partner, clientSecret: 'env:A_SECRET' }] }, { A_SECRET: 'from-env' });
    expect(ok.partnerByClientId('a')?.clientSecret).toBe('from-env');
    expect(() => parseServiceConfig({ programs: [program], partners: [{ ...partner, clientSecret: 'env:MISSING' }] }, {})).toThrow(/env:MISSING/);
  });

  it('names every faulty entry on one line (operations.md: the start-up refusal is one line)', () => {
    const raw = { programs: [program], partners: [{ ...partner, bogusField: 1, other: 2 }] };
    expect(() => parseServiceConfig(raw)).toThrow(ServiceConfigError);
    expect(() => parseServiceConfig(raw)).toThrow(
      /^Invalid service configuration: partners\.0\.bogusField: property bogusField should not exist; partners\.0\.other: /,
    );
    expect(() => parseServiceConfig(raw)).not.toThrow(/\n/);
  });

  it('production refuses literal secrets', () => {
    expect(() => parseServiceConfig({ programs: [program], partners: [partner] }, {}, { production: true })).toThrow(ServiceConfigError);
    const literalSecond = rotating({ clientSecrets: ['env:A_SECRET', 'literal'] });
    expect(() => parseServiceConfig({ programs: [program], partners: [literalSecond] }, { A_SECRET: 'x' }, { production: true })).toThrow(
      /clientSecrets\[1\]: APP_MODE=production refuses literal secrets/,
    );
  });

  it('production needs an https webhook URL; the sandbox keeps http (its tests call loopback receivers)', () => {
    const hooked = (url: string) => ({ ...partner, clientSecret: 'env:A_SECRET', webhook: { url, secret: 'env:HOOK_SECRET' } });
    const env = { A_SECRET: 'x', HOOK_SECRET: 'whsec_c2VjcmV0' };
    expect(() => parseServiceConfig({ programs: [program], partners: [hooked('http://partner.example/hooks')] }, env, { production: true })).toThrow(
      /partners\[0\] \(a\)\.webhook\.url: APP_MODE=production needs an https URL/,
    );
    const secure = parseServiceConfig({ programs: [program], partners: [hooked('https://partner.example/hooks')] }, env, { production: true });
    expect(secure.partnerById('a')?.webhook?.url).toBe('https://partner.example/hooks');
    expect(parseServiceConfig({ programs: [program], partners: [hooked('http://127.0.0.1:9/hooks')] }, env).partnerById('a')?.webhook?.url).toBe(
      'http://127.0.0.1:9/hooks',
    );
  });

  it('lists every accepted credential, single fields and rotation arrays alike', () => {
    const sut = parseServiceConfig(
      {
        programs: [program],
        partners: [
          partner,
          rotating({ partnerId: 'b', clientId: 'b', clientSecrets: ['old', 'env:B_NEW'] }),
          rotating({ partnerId: 'c', clientId: 'c', clientSecretHashes: [PHC, PHC.replace('c2FsdA', 'c2FsdB')] }),
          rotating({ partnerId: 'd', clientId: 'd', clientSecretHash: PHC }),
        ],
      },
      { B_NEW: 'new' },
    );
    expect(sut.partnerByClientId('a')).toMatchObject({ clientSecret: 's', clientSecrets: ['s'], clientSecretHashes: [] });
    expect(sut.partnerByClientId('b')).toMatchObject({ clientSecret: undefined, clientSecrets: ['old', 'new'], clientSecretHashes: [] });
    expect(sut.partnerByClientId('c')?.clientSecretHashes).toHaveLength(2);
    expect(sut.partnerByClientId('d')).toMatchObject({ clientSecretHash: PHC, clientSecrets: [], clientSecretHashes: [PHC] });
  });
});

describe('production mode', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
  const file = path.join(dir, 'config.json');
  fs.writeFileSync(file, JSON.stringify({ programs: [program], partners: [{ ...partner, clientSecret: 'env:A_SECRET' }] }));

  it('refuses the shipped sandbox configuration', () => {
    expect(() => AppConfig.load({ APP_MODE: 'production' })).toThrow(/SERVICE_CONFIG/);
  });

  it('refuses to start without SERVICE_KEYS, naming it in the one line', () => {
    const complete = {
      APP_MODE: 'production',
      SERVICE_CONFIG: file,
      A_SECRET: 'x',
      DATA_DIR: dir,
      DATABASE_URL: 'postgres://db/x',
      PUBLIC_URL: 'https://api.example',
      OFAC_LIST_DIR: dir,
    };
    expect(() => AppConfig.load(complete)).toThrow(/^APP_MODE=production refuses to start: SERVICE_KEYS is not set/);
  });

  it('refuses a webhook retry schedule shorter than 24 hours (CONTRACT section 7), which the sandbox may shorten', () => {
    const complete = {
      APP_MODE: 'production',
      SERVICE_CONFIG: file,
      SERVICE_KEYS: 'checked later',
      A_SECRET: 'x',
      DATA_DIR: dir,
      DATABASE_URL: 'postgres://db/x?sslmode=require',
      PUBLIC_URL: 'https://api.example',
      OFAC_LIST_DIR: dir,
    };
    expect(() => AppConfig.load({ ...complete, WEBHOOK_RETRY_DELAYS_MS: '1000,2000' })).toThrow(
      /^APP_MODE=production refuses to start: WEBHOOK_RETRY_DELAYS_MS must span at least 86400000 ms .*got 3000 ms$/,
    );
    expect(() => AppConfig.load({ ...complete, WEBHOOK_RETRY_DELAYS_MS: '43200000,43200000' })).not.toThrow();
    expect(() => AppConfig.load({ ...complete })).not.toThrow();
    expect(AppConfig.load({ SERVICE_CONFIG: file, A_SECRET: 'x', DATA_DIR: dir, WEBHOOK_RETRY_DELAYS_MS: '1000' }).env.webhookRetryDelaysMs).toEqual([1000]);
  });

  it('the key store itself refuses production without SERVICE_KEYS too', async () => {
    const sandbox = AppConfig.load({ SERVICE_CONFIG: file, A_SECRET: 'x', DATA_DIR: dir });
    const production = new AppConfig({ ...sandbox.env, appMode: 'production', serviceKeys: undefined }, sandbox.service);
    await expect(KeyStore.load(production)).rejects.toThrow(/SERVICE_KEYS/);
  });
});
