import { DomainError } from '../errors/domain-error';
import Fastify, { type FastifyRequest } from 'fastify';
import { API_BODY, jsonBodyParser, MAX_BODY_DEPTH, nfcString, prepareJson, prototypeKeyPath } from './json-body';

const depthOnly = (maxDepth: number) => ({ maxDepth, nfc: false });
const nfcTo = (maxDepth: number) => ({ maxDepth, nfc: true });

const DECOMPOSED = 'Jose\u0301 Nu\u0301n\u0303ez';
const PRECOMPOSED = 'José Núñez';

function nested(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

describe(prepareJson.name, () => {
  it('composes every string at any depth, in place, and keeps every other value', () => {
    const input = { a: DECOMPOSED, list: [DECOMPOSED, 1, null, true, { b: [DECOMPOSED] }], n: 2.5, none: null, ascii: 'plain' };
    expect(prepareJson(input, API_BODY)).toBe(true);
    expect(input).toEqual({ a: PRECOMPOSED, list: [PRECOMPOSED, 1, null, true, { b: [PRECOMPOSED] }], n: 2.5, none: null, ascii: 'plain' });
    expect(nfcString(DECOMPOSED)).toBe(PRECOMPOSED);
  });

  it('leaves strings as sent without nfc, and accepts a value that is not a container', () => {
    const input = { name: DECOMPOSED, list: [DECOMPOSED] };
    expect(prepareJson(input, depthOnly(MAX_BODY_DEPTH))).toBe(true);
    expect(input).toEqual({ name: DECOMPOSED, list: [DECOMPOSED] });
    expect(prepareJson(DECOMPOSED, API_BODY)).toBe(true);
    expect(prepareJson(null, API_BODY)).toBe(true);
  });

  it('keeps a combining mark that has no precomposed letter, and keys as sent', () => {
    const input = { ['e\u0301']: 'x\u0301' };
    prepareJson(input, API_BODY);
    expect(input).toEqual({ ['e\u0301']: 'x\u0301' });
  });

  it('keeps a __proto__ key an own property, never the prototype', () => {
    const input = JSON.parse(`{"__proto__": "${DECOMPOSED}", "x": {"__proto__": {"polluted": "yes"}}}`) as Record<string, unknown>;
    prepareJson(input, API_BODY);
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(input, '__proto__')?.value).toBe(PRECOMPOSED);
    expect(Object.getPrototypeOf(input.x)).toBe(Object.prototype);
    expect((input.x as { polluted?: string }).polluted).toBeUndefined();
  });

  it('refuses nesting deeper than the limit, counting the root as level 1', () => {
    expect(prepareJson(nested(MAX_BODY_DEPTH), API_BODY)).toBe(true);
    expect(prepareJson(nested(MAX_BODY_DEPTH + 1), API_BODY)).toBe(false);
    // A scalar at the deepest level is not a level of its own.
    expect(prepareJson(nested(MAX_BODY_DEPTH, 'leaf'), depthOnly(MAX_BODY_DEPTH))).toBe(true);
  });

  it('walks nesting far deeper than the call stack allows', () => {
    let deep: unknown = DECOMPOSED;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(prepareJson(deep, nfcTo(Number.MAX_SAFE_INTEGER))).toBe(true);
    let leaf = deep;
    for (let i = 0; i < 100_000; i++) leaf = (leaf as unknown[])[0];
    expect(leaf).toBe(PRECOMPOSED);
    expect(prepareJson(deep, API_BODY)).toBe(false);
  });

  it('leaves keys named like prototype properties where they are (prototypeKeyPath finds them)', () => {
    const kept = JSON.parse('{"constructor":1,"a":{"prototype":2}}') as unknown;
    expect(prepareJson(kept, API_BODY)).toBe(true);
    expect(kept).toStrictEqual({ constructor: 1, a: { prototype: 2 } });
  });

  it('replaces a lone surrogate by U+FFFD and keeps pairs', () => {
    const input = { email: '\ud800', tail: 'a\udc00', pair: '\ud83d\ude00' };
    prepareJson(input, API_BODY);
    expect(input).toEqual({ email: '\ufffd', tail: 'a\ufffd', pair: '\ud83d\ude00' });
  });
});

describe(jsonBodyParser.name, () => {
  const sut = jsonBodyParser(Fastify({ onProtoPoisoning: 'error', onConstructorPoisoning: 'error' }));

  function parsed(text: string, headers: Record<string, string> = {}, is404 = false): Promise<{ error: Error | null; body: unknown }> {
    return new Promise((resolve) => {
      void sut({ headers, is404 } as FastifyRequest, Buffer.from(text), (error, body) => resolve({ error: error ?? null, body }));
    });
  }

  it('refuses a content-encoded body (it decodes none): 415, whatever the coding but identity', async () => {
    for (const coding of ['gzip', 'br', 'identity, gzip']) {
      expect(((await parsed('{"a":1}', { 'content-encoding': coding })).error as DomainError).key).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect(await parsed('{"a":1}', { 'content-encoding': 'identity' })).toEqual({ error: null, body: { a: 1 } });
  });

  it('refuses a body declared in another charset than UTF-8: 415 (CONTRACT section 1: JSON bodies are UTF-8)', async () => {
    for (const charset of ['utf-16', 'iso-8859-1']) {
      expect(((await parsed('{"a":1}', { 'content-type': `application/json; charset=${charset}` })).error as DomainError).key).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect(await parsed('{"a":1}', { 'content-type': 'application/json; charset=UTF-8' })).toEqual({ error: null, body: { a: 1 } });
  });

  it('takes no body of a request that matches no route, whatever it is (it answers 404/404/0)', async () => {
    for (const [text, headers] of [
      ['{"a":', {}],
      ['{"a":1}', { 'content-encoding': 'gzip' }],
      ['{"a":1}', { 'content-type': 'application/json; charset=utf-16' }],
    ] as const) {
      expect(await parsed(text, headers, true)).toEqual({ error: null, body: undefined });
    }
  });

  it('takes no content at all as no body, and parses JSON as Fastify does', async () => {
    expect(await parsed('')).toEqual({ error: null, body: undefined });
    expect(await parsed('{"requestId":"r-1","n":[1,2]}')).toEqual({ error: null, body: { requestId: 'r-1', n: [1, 2] } });
  });

  it('refuses content that is not JSON (whitespace alone included)', async () => {
    for (const text of [' ', '{"a":']) {
      expect((await parsed(text)).error).toBeInstanceOf(Error);
    }
  });

  it('parses __proto__ and constructor.prototype as own properties, which poison nothing (the body pipes refuse them)', async () => {
    const { error, body } = await parsed('{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}');
    expect(error).toBeNull();
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.keys(body as object)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(prototypeKeyPath(body)).toBe('__proto__');
  });
});

describe(prototypeKeyPath.name, () => {
  it("names the key named like a prototype property nearest the top, in the validation's path form, or null", () => {
    const parse = (text: string) => JSON.parse(text) as unknown;
    expect(prototypeKeyPath(parse('{"a":[{"b":2}],"c":{"d":3}}'))).toBeNull();
    expect(prototypeKeyPath(parse('{"a":[{"constructor":{"prototype":1},"b":"x"}],"c":{"d":3}}'))).toBe('a[0].constructor');
    expect(prototypeKeyPath(parse('{"a":{"b":{"prototype":1}},"constructor":1}'))).toBe('constructor');
    expect(prototypeKeyPath(parse('{"c":{"__proto__":{"x":1}}}'))).toBe('c.__proto__');
    expect(prototypeKeyPath(parse('[{"a":1},{"prototype":1}]'))).toBe('[1].prototype');
    expect(prototypeKeyPath(parse('{"a":"constructor"}'))).toBeNull();
    expect(prototypeKeyPath(parse('{"a":{"valueOf":1}}'))).toBe('a.valueOf');
    expect(prototypeKeyPath(parse('{"toString":1}'))).toBe('toString');
    expect(prototypeKeyPath(null)).toBeNull();
    expect(prototypeKeyPath('constructor')).toBeNull();
  });
});
