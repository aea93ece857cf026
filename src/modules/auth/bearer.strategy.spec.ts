import { SAMPLE_PRINCIPAL } from '../../common/testing/http-context';
import { BearerStrategy } from './bearer.strategy';
import type { TokenService } from './token.service';

const principal = SAMPLE_PRINCIPAL;

// The cache of verified tokens lives in TokenService.verify (one home); its ends are proved over HTTP
// in test/token-lifetime.e2e-spec.ts and test/token-cache.e2e-spec.ts.
describe(BearerStrategy.name, () => {
  let verify: jest.MockedFunction<TokenService['verify']>;
  let sut: BearerStrategy;

  beforeEach(() => {
    verify = jest.fn<ReturnType<TokenService['verify']>, Parameters<TokenService['verify']>>();
    const tokens: Partial<TokenService> = { verify };
    sut = new BearerStrategy(tokens as TokenService);
  });

  it('admits the principal TokenService.verify answers for the token', async () => {
    verify.mockResolvedValue(principal);
    await expect(sut.validate('a.token.here')).resolves.toBe(principal);
    expect(verify).toHaveBeenCalledWith('a.token.here');
  });

  it('refuses (false, so passport answers 401) a token TokenService.verify refuses', async () => {
    verify.mockResolvedValue(null);
    await expect(sut.validate('a.token.here')).resolves.toBe(false);
  });
});
