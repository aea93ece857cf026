import type { PartnerConfig } from '../../config/service-config';
import type { Principal } from '../../common/context/request-context';
import type { AppConfig } from '../../config/app-config';
import { BearerStrategy } from './bearer.strategy';
import type { TokenService } from './token.service';

const TTL_SECONDS = 3600;
const NOW_MS = Date.UTC(2026, 10, 25, 12, 0, 0);
const partner: PartnerConfig = {
  partnerId: 'acme',
  clientId: 'acme',
  clientSecrets: [],
  clientSecretHashes: [],
  programs: ['sandbox'],
  scopes: ['enrollments'],
  encryption: null,
  webhook: null,
};
const principal: Principal = { partner, clientId: 'acme', scopes: ['enrollments'] };

/** A token with these claims (the strategy reads them only after TokenService.verify admitted it). */
function tokenWith(claims: { iat?: number; exp?: number }): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'ES256', typ: 'at+jwt' })}.${part({ sub: 'acme', ...claims })}.signature`;
}

describe(BearerStrategy.name, () => {
  let verify: jest.MockedFunction<TokenService['verify']>;
  let sut: BearerStrategy;
  const nowSeconds = NOW_MS / 1000;

  beforeEach(() => {
    jest.useFakeTimers({ now: NOW_MS });
    verify = jest.fn<ReturnType<TokenService['verify']>, Parameters<TokenService['verify']>>().mockResolvedValue(principal);
    const tokens: Partial<TokenService> = { verify };
    sut = new BearerStrategy(tokens as TokenService, { env: { tokenTtlSeconds: TTL_SECONDS } } as AppConfig);
  });

  afterEach(() => jest.useRealTimers());

  it('verifies a token once, then admits it from the cache as the same principal', async () => {
    const token = tokenWith({ iat: nowSeconds, exp: nowSeconds + TTL_SECONDS });
    expect(await sut.validate(token)).toBe(principal);
    expect(await sut.validate(token)).toBe(principal);
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('never caches a token that failed: each time it comes, it is verified and refused', async () => {
    verify.mockResolvedValue(null);
    const token = tokenWith({ iat: nowSeconds, exp: nowSeconds + TTL_SECONDS });
    expect(await sut.validate(token)).toBe(false);
    expect(await sut.validate(token)).toBe(false);
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('keeps no entry past the token exp', async () => {
    const token = tokenWith({ iat: nowSeconds, exp: nowSeconds + 30 });
    await sut.validate(token);
    jest.setSystemTime(NOW_MS + 29_000);
    await sut.validate(token);
    expect(verify).toHaveBeenCalledTimes(1);
    jest.setSystemTime(NOW_MS + 30_000);
    verify.mockResolvedValue(null);
    expect(await sut.validate(token)).toBe(false);
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('keeps no entry past iat + TOKEN_TTL_SECONDS + 60 s, whatever the exp (CONTRACT section 3)', async () => {
    const issuedAt = nowSeconds - TTL_SECONDS;
    const token = tokenWith({ iat: issuedAt, exp: nowSeconds + 10 * TTL_SECONDS });
    await sut.validate(token);
    jest.setSystemTime((issuedAt + TTL_SECONDS + 59) * 1000);
    await sut.validate(token);
    expect(verify).toHaveBeenCalledTimes(1);
    jest.setSystemTime((issuedAt + TTL_SECONDS + 60) * 1000);
    verify.mockResolvedValue(null);
    expect(await sut.validate(token)).toBe(false);
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('does not cache a token that verified past its iat bound (the verifier decides; nothing keeps admitting it)', async () => {
    const token = tokenWith({ iat: nowSeconds - TTL_SECONDS - 61, exp: nowSeconds + TTL_SECONDS });
    await sut.validate(token);
    await sut.validate(token);
    expect(verify).toHaveBeenCalledTimes(2);
  });
});
