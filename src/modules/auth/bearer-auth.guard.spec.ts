import { AsyncLocalStorage } from 'node:async_hooks';
import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ClsService } from 'nestjs-cls';
import { Public, RequiresScopes } from '../../common/auth/decorators';
import type { Principal, RequestContextStore } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import { httpContextOf, SAMPLE_PRINCIPAL } from '../../common/testing/http-context';
import { BearerAuthGuard } from './bearer-auth.guard';

const principal = SAMPLE_PRINCIPAL;

class Routes {
  undeclared(): void {}

  @Public()
  open(): void {}

  @RequiresScopes('enrollments')
  enrollments(): void {}

  @RequiresScopes('care')
  care(): void {}
}

interface SampleRequest {
  headers: Record<string, string>;
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  user?: Principal;
}

function contextOf(handler: () => void, overrides: Partial<SampleRequest> = {}): { context: ExecutionContext; request: SampleRequest } {
  const request: SampleRequest = { headers: { authorization: 'Bearer x' }, params: {}, query: {}, body: undefined, user: principal, ...overrides };
  const context = httpContextOf(Routes, handler, request);
  return { context, request };
}

describe(BearerAuthGuard.name, () => {
  let passport: jest.SpyInstance;
  const sut = new BearerAuthGuard(new Reflector(), new ClsService<RequestContextStore>(new AsyncLocalStorage()));

  beforeEach(() => {
    // The passport step (BearerStrategy: jose and the verified-token cache) has its own spec; here it admits `principal`.
    passport = jest.spyOn(AuthGuard('bearer').prototype, 'canActivate').mockResolvedValue(true);
  });

  afterEach(() => jest.restoreAllMocks());

  it('denies by default: a route declaring neither scopes nor @Public() is refused (403/403/1)', async () => {
    await expect(sut.canActivate(contextOf(Routes.prototype.undeclared).context)).rejects.toMatchObject({ key: 'INSUFFICIENT_SCOPE' });
  });

  it('lets a public route through without a token or passport, and a declared scope the token carries through passport', async () => {
    await expect(sut.canActivate(contextOf(Routes.prototype.open, { headers: {} }).context)).resolves.toBe(true);
    expect(passport).not.toHaveBeenCalled();
    await expect(sut.canActivate(contextOf(Routes.prototype.enrollments).context)).resolves.toBe(true);
    expect(passport).toHaveBeenCalledTimes(1);
  });

  it("refuses a scope the token lacks (403/403/1) and a program that is not the partner's (403/403/2)", async () => {
    await expect(sut.canActivate(contextOf(Routes.prototype.care).context)).rejects.toMatchObject({ key: 'INSUFFICIENT_SCOPE' });
    await expect(sut.canActivate(contextOf(Routes.prototype.enrollments, { params: { programCode: 'other' } }).context)).rejects.toMatchObject({
      key: 'PROGRAM_NOT_ALLOWED',
    });
  });

  it.each([
    ['the query string', { query: { access_token: 'x' } }],
    ['the body', { body: { access_token: 'x' } }],
  ])('refuses a token in %s (401/401/0, error="invalid_request") before passport', async (_where, request) => {
    const error = (await sut.canActivate(contextOf(Routes.prototype.enrollments, request).context).catch((e: unknown) => e)) as DomainError;
    expect(error).toBeInstanceOf(DomainError);
    expect(error.key).toBe('UNAUTHORIZED');
    expect(error.options.headers?.['www-authenticate']).toMatch(/error="invalid_request"/);
    expect(passport).not.toHaveBeenCalled();
  });
});
