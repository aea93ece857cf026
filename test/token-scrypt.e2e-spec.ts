import { randomBytes, scryptSync } from 'node:crypto';
import { PARTNERS, startTestApp, TestApp } from './support/test-app';
import { Answer, tokenRequest } from './support/token-requests';

/** A PHC dear enough (ln=14) that a few verifications fill a lane while the spec watches. */
function costlyPhc(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, 32, { N: 2 ** 14, r: 8, p: 1 });
  return `$scrypt$ln=14,r=8,p=1$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** CONTRACT section 12 (2026-11-25): work waiting for client-secret hashing is bounded; unknown ids wait apart. */
describe('Token endpoint scrypt lanes (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('token_scrypt', {
      env: { SCRYPT_QUEUE_LIMIT: '2' },
      // The dearest partner: the unknown ids' dummy verification takes its shape (two ln=14 scrypts).
      extraPartners: [
        { partnerId: 'costly', clientId: 'costly', clientSecretHashes: ['a', 'b'].map(costlyPhc), programs: ['sandbox'], scopes: ['enrollments'] },
      ],
    });
  });

  afterAll(async () => {
    await app.close();
  });

  it('a flood of unknown ids: past the queue 503/503/2 at once, and a known client still gets its token meanwhile', async () => {
    const timed = async (call: Promise<Answer>) => {
      const started = Date.now();
      const answer = await call;
      return { answer, ms: Date.now() - started };
    };
    const flood = Array.from({ length: 12 }, (_, i) => timed(tokenRequest(app.baseUrl, `made-up-${i}-${randomBytes(4).toString('hex')}`, 'guess')));
    const known = await tokenRequest(app.baseUrl, PARTNERS.hashed.clientId, PARTNERS.hashed.clientSecret);
    expect(known.status).toBe(200);
    const answers = await Promise.all(flood);
    const refused = answers.filter(({ answer }) => answer.status === 503);
    const verified = answers.filter(({ answer }) => answer.status === 401);
    // One running and two waiting in the unknown ids' lane; the rest refused.
    expect(verified.length).toBeGreaterThanOrEqual(3);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length + verified.length).toBe(12);
    for (const { answer } of refused) {
      expect(answer.body.responseDetails).toEqual([expect.objectContaining({ code: 503, subCode: 2 })]);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
    // Refused at once: before any dummy verification of the flood has finished.
    expect(Math.max(...refused.map(({ ms }) => ms))).toBeLessThan(Math.min(...verified.map(({ ms }) => ms)));
  });
});
