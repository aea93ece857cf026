import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ClsService } from 'nestjs-cls';
import { IS_PUBLIC, REQUIRED_SCOPES } from '../../common/auth/decorators';
import { DomainError } from '../../common/errors/domain-error';
import type { Principal, RequestContextStore } from '../../common/context/request-context';
import { BearerAuthGuard } from './bearer-auth.guard';
import type { TokenService } from './token.service';

const principal = { partner: { programs: ['sandbox'] }, clientId: 'acme', scopes: ['enrollments'] } as unknown as Principal;

function contextWith(metadata: Record<string, unknown>, request: Record<string, unknown> = {}, cached?: Principal) {
  const reflector = { getAllAndOverride: (key: string) => metadata[key] } as unknown as Reflector;
  const cls = { isActive: () => false, set: jest.fn() } as unknown as ClsService<RequestContextStore>;
  const req = { headers: { authorization: 'Bearer x' }, params: {}, query: {}, body: undefined, user: principal, ...request };
  const context = { getHandler: () => undefined, getClass: () => undefined, switchToHttp: () => ({ getRequest: () => req }) } as unknown as ExecutionContext;
  const tokens = { cachedPrincipal: (token: string) => (token === 'x' ? cached : undefined) } as unknown as TokenService;
  return { sut: new BearerAuthGuard(reflector, cls, tokens), context, req };
}

describe(BearerAuthGuard.name, () => {
  let passport: jest.SpyInstance;

  beforeEach(() => {
    // The passport step (token verification) is covered end to end; here it succeeds.
    passport = jest.spyOn(Object.getPrototypeOf(BearerAuthGuard.prototype) as { canActivate: () => Promise<boolean> }, 'canActivate').mockResolvedValue(true);
  });

  afterEach(() => jest.restoreAllMocks());

  it('denies by default: a route declaring neither scopes nor @Public() is refused (403/403/1)', async () => {
    const { sut, context } = contextWith({});
    await expect(sut.canActivate(context)).rejects.toMatchObject({ key: 'INSUFFICIENT_SCOPE' });
  });

  it('lets a public route through without a token, and a declared scope the token carries', async () => {
    await expect(contextWith({ [IS_PUBLIC]: true }).sut.canActivate(contextWith({ [IS_PUBLIC]: true }).context)).resolves.toBe(true);
    const scoped = contextWith({ [REQUIRED_SCOPES]: ['enrollments'] });
    await expect(scoped.sut.canActivate(scoped.context)).resolves.toBe(true);
  });

  it.each([
    ['the query string', { query: { access_token: 'x' } }],
    ['the body', { body: { access_token: 'x' } }],
  ])('refuses a token in %s (401/401/0, error="invalid_request")', async (_where, request) => {
    const { sut, context } = contextWith({ [REQUIRED_SCOPES]: ['enrollments'] }, request);
    const error = (await sut.canActivate(context).catch((e: unknown) => e)) as DomainError;
    expect(error).toBeInstanceOf(DomainError);
    expect(error.key).toBe('UNAUTHORIZED');
    expect(error.options.headers?.['www-authenticate']).toMatch(/error="invalid_request"/);
  });

  it('takes a token of the verified-token cache as its principal without passport, and still checks its scopes', async () => {
    const scoped = contextWith({ [REQUIRED_SCOPES]: ['enrollments'] }, { user: undefined }, principal);
    await expect(scoped.sut.canActivate(scoped.context)).resolves.toBe(true);
    expect(scoped.req.user).toBe(principal);
    expect(passport).not.toHaveBeenCalled();
    const other = contextWith({ [REQUIRED_SCOPES]: ['care'] }, { user: undefined }, principal);
    await expect(other.sut.canActivate(other.context)).rejects.toMatchObject({ key: 'INSUFFICIENT_SCOPE' });
    const uncached = contextWith({ [REQUIRED_SCOPES]: ['enrollments'] });
    await expect(uncached.sut.canActivate(uncached.context)).resolves.toBe(true);
    expect(passport).toHaveBeenCalledTimes(1);
  });
});
