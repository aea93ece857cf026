import { InvalidTokenRequest, isFormMediaType, parseTokenForm, tokenRequestOf } from './token-form';

describe(parseTokenForm.name, () => {
  const parse = (text: string) => parseTokenForm(Buffer.from(text));

  it('decodes + and %-escapes, keeps unknown parameters, skips empty pairs', () => {
    expect({ ...parse('grant_type=client_credentials&scope=a+b%20c&&x') }).toEqual({ grant_type: 'client_credentials', scope: 'a b c', x: '' });
    expect({ ...parseTokenForm(undefined) }).toEqual({});
  });

  it.each([
    ['a parameter twice', 'client_id=a&client_id=a'],
    ['a bad escape', 'client_secret=%zz'],
    ['a truncated escape', 'client_id=%E0%A4%A'],
  ])('refuses %s', (_case, text) => {
    expect(() => parse(text)).toThrow(InvalidTokenRequest);
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(() => parseTokenForm(Buffer.from([0x61, 0x3d, 0xff]))).toThrow(InvalidTokenRequest);
  });

  it('a __proto__ parameter is a plain own entry', () => {
    const form = parse('__proto__=x&grant_type=client_credentials');
    expect(Object.getPrototypeOf(form)).toBeNull();
    expect(form.__proto__).toBe('x');
  });
});

describe(isFormMediaType.name, () => {
  it.each([
    ['application/x-www-form-urlencoded', true],
    ['Application/X-WWW-Form-Urlencoded; charset=UTF-8', true],
    ['application/x-www-form-urlencoded;charset="utf-8"', true],
    ['application/x-www-form-urlencoded; charset=ISO-8859-1', false],
    ['application/json', false],
    [undefined, false],
  ])('%s: %s', (contentType, expected) => {
    expect(isFormMediaType(contentType)).toBe(expected);
  });
});

describe(tokenRequestOf.name, () => {
  const basicOf = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

  it('refuses a form client_id naming another client than the Basic header', () => {
    expect(() => tokenRequestOf({ client_id: 'form' }, basicOf('basic', 's3cret'))).toThrow(InvalidTokenRequest);
    expect(() => tokenRequestOf({ client_id: '' }, basicOf('basic', 's3cret'))).toThrow(InvalidTokenRequest);
  });

  it('refuses a client id over 128 characters in the form or in Basic', () => {
    expect(() => tokenRequestOf({ client_id: 'a'.repeat(128) }, undefined)).not.toThrow();
    expect(() => tokenRequestOf({ client_id: 'a'.repeat(129) }, undefined)).toThrow(InvalidTokenRequest);
    expect(() => tokenRequestOf({}, basicOf('a'.repeat(129), 'x'))).toThrow(InvalidTokenRequest);
  });

  it('names the Basic client first, else the form client_id, and no client for an empty form client_id', () => {
    expect(tokenRequestOf({ client_id: 'basic' }, basicOf('basic', 's3cret'))).toEqual({
      form: { client_id: 'basic' },
      basic: { id: 'basic', secret: 's3cret' },
      clientId: 'basic',
    });
    expect(tokenRequestOf({ client_id: 'form' }, undefined).clientId).toBe('form');
    expect(tokenRequestOf({ client_id: '' }, undefined).clientId).toBeUndefined();
    expect(tokenRequestOf({}, 'Bearer x')).toEqual({ form: {}, basic: undefined, clientId: undefined });
  });
});
