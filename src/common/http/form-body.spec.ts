import type { FastifyRequest } from 'fastify';
import { DomainError } from '../errors/domain-error';
import { FormBody, parseFormBody } from './form-body';

function routeDeclaring(formBody: FormBody | undefined, headers: Record<string, string> = {}, is404 = false): FastifyRequest {
  return { headers, is404, routeOptions: { config: formBody === undefined ? {} : { formBody } } } as FastifyRequest;
}

function parsed(request: FastifyRequest, text: string): { error: Error | null; body: unknown } {
  let result: { error: Error | null; body: unknown } | undefined;
  parseFormBody(request, Buffer.from(text), (error, body) => (result = { error, body }));
  if (!result) throw new Error('done was not called');
  return result;
}

describe(parseFormBody.name, () => {
  it("hands a route declaring 'bytes' the body as sent, unparsed", () => {
    const bytes = 'grant_type=client_credentials&scope=a+b';
    const { error, body } = parsed(routeDeclaring('bytes'), bytes);
    expect(error).toBeNull();
    expect(Buffer.isBuffer(body) && body.toString()).toBe(bytes);
  });

  it("parses the fields for a route declaring 'fields' (a repeated one as a list)", () => {
    const { error, body } = parsed(routeDeclaring('fields'), 'q=Jos%C3%A9+N&_csrf=t&x=1&x=2');
    expect(error).toBeNull();
    expect({ ...(body as object) }).toEqual({ q: 'José N', _csrf: 't', x: ['1', '2'] });
  });

  it('refuses a form on a route that declares none: 415, code 100, subCode 4', () => {
    const { error } = parsed(routeDeclaring(undefined), 'requestId=r1');
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).key).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((error as DomainError).entry).toMatchObject({ http: 415, code: 100, subCode: 4 });
  });

  it('takes no body of a request that matches no route, whatever it is (it answers 404/404/0)', () => {
    for (const headers of [{}, { 'content-encoding': 'gzip' }] as Array<Record<string, string>>) {
      expect(parsed(routeDeclaring(undefined, headers, true), 'a=b&__proto__=x')).toEqual({ error: null, body: undefined });
    }
  });

  it('refuses a content-encoded form (it decodes none): 415; the token route, taking bytes, refuses it itself', () => {
    expect((parsed(routeDeclaring('fields', { 'content-encoding': 'gzip' }), 'q=a').error as DomainError).key).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(parsed(routeDeclaring('fields', { 'content-encoding': 'identity' }), 'q=a').error).toBeNull();
    expect(parsed(routeDeclaring('bytes', { 'content-encoding': 'gzip' }), 'q=a').error).toBeNull();
  });

  it('refuses a __proto__ field as malformed, as a JSON body with one is', () => {
    const { error } = parsed(routeDeclaring('fields'), 'q=a&__proto__=x');
    expect((error as DomainError).key).toBe('MALFORMED_JSON');
  });
});
