import { randomBytes, scryptSync } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { loadEnv } from '../../config/env';
import { parseServiceConfig } from '../../config/service-config';
import { DomainError } from '../../common/errors/domain-error';
import { ScryptHasher } from './client-secret';
import { ClientSecretVerifier, DEFAULT_CLIENT_SECRET_VERIFIER_OPTIONS } from './client-secret-verifier';

/** A cheap PHC (ln=4) so the spec runs real scrypt quickly. */
function phc(secret: string): string {
  const salt = randomBytes(16);
  return `$scrypt$ln=4,r=8,p=1$${salt.toString('base64')}$${scryptSync(secret, salt, 32, { N: 16, r: 8, p: 1 }).toString('base64')}`;
}

const partner = (clientId: string, fields: Record<string, unknown>) => ({
  partnerId: clientId,
  clientId,
  programs: ['p1'],
  scopes: ['enrollments'],
  ...fields,
});

function configWith(partners: Array<Record<string, unknown>>): AppConfig {
  const program = { programCode: 'p1', currencies: ['USD'], kycRequired: true };
  return new AppConfig(loadEnv({}), parseServiceConfig({ programs: [program], partners }, {}));
}

describe(ClientSecretVerifier.name, () => {
  const HASH = phc('right');
  const config = configWith([
    partner('hashed', { clientSecretHash: HASH }),
    partner('rotating', { clientSecretHashes: [phc('old'), phc('new')] }),
    partner('plain', { clientSecrets: ['sandbox-old', 'sandbox-new'] }),
  ]);
  let now: number;
  let hasher: ScryptHasher;
  let matches: jest.SpyInstance<Promise<boolean>, [string, string]>;
  let sut: ClientSecretVerifier;

  const clientOf = (clientId: string) => config.service.partnerByClientId(clientId);

  beforeEach(() => {
    now = 1_000_000;
    hasher = new ScryptHasher();
    matches = jest.spyOn(hasher, 'matches');
    sut = new ClientSecretVerifier(config, hasher, { ...DEFAULT_CLIENT_SECRET_VERIFIER_OPTIONS, cacheTtlMs: 60_000, now: () => now });
  });

  it('runs scrypt once, then accepts the same secret from the cache', async () => {
    expect(await sut.verify(clientOf('hashed'), 'right')).toBe(true);
    expect(await sut.verify(clientOf('hashed'), 'right')).toBe(true);
    expect(matches).toHaveBeenCalledTimes(1);
  });

  it('refuses a wrong secret right after the right one was cached, with a full scrypt, and caches no failure', async () => {
    await sut.verify(clientOf('hashed'), 'right');
    expect(await sut.verify(clientOf('hashed'), 'wrong')).toBe(false);
    expect(await sut.verify(clientOf('hashed'), 'wrong')).toBe(false);
    expect(matches).toHaveBeenCalledTimes(3);
    expect(await sut.verify(clientOf('hashed'), 'right')).toBe(true);
    expect(matches).toHaveBeenCalledTimes(3);
  });

  it('verifies with scrypt again once the cached entry has expired', async () => {
    await sut.verify(clientOf('hashed'), 'right');
    now += 59_999;
    await sut.verify(clientOf('hashed'), 'right');
    expect(matches).toHaveBeenCalledTimes(1);
    now += 1;
    expect(await sut.verify(clientOf('hashed'), 'right')).toBe(true);
    expect(matches).toHaveBeenCalledTimes(2);
  });

  it('does not let one client reuse the cache of another', async () => {
    await sut.verify(clientOf('hashed'), 'right');
    expect(await sut.verify(clientOf('rotating'), 'right')).toBe(false);
  });

  it('runs a dummy scrypt with the configured cost for an unknown client id, and refuses it', async () => {
    expect(await sut.verify(undefined, 'right')).toBe(false);
    // The partner with the most hashes sets the dummy's shape: two hashes, both ln=4,r=8,p=1.
    expect(matches).toHaveBeenCalledTimes(2);
    for (const [, dummy] of matches.mock.calls) {
      expect(dummy).toMatch(/^\$scrypt\$ln=4,r=8,p=1\$/);
      expect(config.service.partners.flatMap((p) => p.clientSecretHashes)).not.toContain(dummy);
    }
  });

  it('compares plain secrets without scrypt for an unknown id when no partner is hashed', async () => {
    const plainOnly = new ClientSecretVerifier(configWith([partner('plain', { clientSecret: 's' })]), hasher, DEFAULT_CLIENT_SECRET_VERIFIER_OPTIONS);
    expect(await plainOnly.verify(undefined, 's')).toBe(false);
    expect(matches).not.toHaveBeenCalled();
  });

  it.each([
    ['rotating', 'old', 'new'],
    ['plain', 'sandbox-old', 'sandbox-new'],
  ])('accepts both secrets of %s while it rotates, alternating from the cache', async (clientId, first, second) => {
    for (let round = 0; round < 2; round++) {
      expect(await sut.verify(clientOf(clientId), first)).toBe(true);
      expect(await sut.verify(clientOf(clientId), second)).toBe(true);
    }
    expect(await sut.verify(clientOf(clientId), 'neither')).toBe(false);
    expect(matches.mock.calls.filter(([secret]) => secret !== 'neither')).toHaveLength(clientId === 'rotating' ? 3 : 0);
  });

  it('runs at most maxConcurrentScrypt verifications at once and queues the rest', async () => {
    let running = 0;
    let peak = 0;
    const release: Array<() => void> = [];
    matches.mockImplementation(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => release.push(resolve));
      running--;
      return false;
    });
    const pending = Array.from({ length: 5 }, () => sut.verify(clientOf('hashed'), 'wrong'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBe(DEFAULT_CLIENT_SECRET_VERIFIER_OPTIONS.maxConcurrentScrypt);
    while (release.length > 0 || running > 0) {
      release.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(pending)).toEqual([false, false, false, false, false]);
    expect(peak).toBe(2);
    expect(matches).toHaveBeenCalledTimes(5);
  });

  describe('lanes', () => {
    let running: string[];
    let release: Array<() => void>;

    beforeEach(() => {
      running = [];
      release = [];
      matches.mockImplementation(async (_secret, phc) => {
        running.push(phc);
        await new Promise<void>((resolve) => release.push(resolve));
        return false;
      });
    });

    const settle = async (pending: Array<Promise<unknown>>) => {
      while (release.length > 0) {
        release.shift()?.();
        await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.allSettled(pending);
    };

    it("unknown ids run in their own lane: a flood of them never delays a known client's scrypt", async () => {
      const flood = Array.from({ length: 6 }, () => sut.verify(undefined, 'guess'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(running).toHaveLength(DEFAULT_CLIENT_SECRET_VERIFIER_OPTIONS.maxConcurrentUnknownScrypt);
      const known = sut.verify(clientOf('hashed'), 'wrong');
      await new Promise((resolve) => setImmediate(resolve));
      expect(running).toContain(HASH);
      await settle([...flood, known]);
    });

    it('a full lane refuses at once with 503/503/2 (DEPENDENCY_UNAVAILABLE) instead of queueing', async () => {
      const bounded = new ClientSecretVerifier(config, hasher, { ...DEFAULT_CLIENT_SECRET_VERIFIER_OPTIONS, maxQueuedScrypt: 1 });
      const first = bounded.verify(clientOf('hashed'), 'a');
      const second = bounded.verify(clientOf('hashed'), 'b');
      const queued = bounded.verify(clientOf('hashed'), 'c');
      const refused = bounded.verify(clientOf('hashed'), 'd');
      await expect(refused).rejects.toBeInstanceOf(DomainError);
      await expect(refused).rejects.toMatchObject({ key: 'DEPENDENCY_UNAVAILABLE' });
      await settle([first, second, queued]);
    });
  });
});
