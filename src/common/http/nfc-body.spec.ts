import { nfcStrings } from './nfc-body';

const DECOMPOSED = 'Jose\u0301 Nu\u0301n\u0303ez';
const PRECOMPOSED = 'José Núñez';

describe(nfcStrings.name, () => {
  it('composes every string at any depth and keeps every other value', () => {
    const input = { a: DECOMPOSED, list: [DECOMPOSED, 1, null, true, { b: [DECOMPOSED] }], n: 2.5, none: null };
    expect(nfcStrings(input)).toEqual({ a: PRECOMPOSED, list: [PRECOMPOSED, 1, null, true, { b: [PRECOMPOSED] }], n: 2.5, none: null });
    expect(nfcStrings(DECOMPOSED)).toBe(PRECOMPOSED);
    expect(nfcStrings(7)).toBe(7);
    expect(nfcStrings(null)).toBeNull();
  });

  it('leaves its input unchanged', () => {
    const input = { name: DECOMPOSED, nested: { names: [DECOMPOSED] } };
    const sut = nfcStrings(input);
    expect(input.name).toBe(DECOMPOSED);
    expect(input.nested.names[0]).toBe(DECOMPOSED);
    expect(sut.nested).not.toBe(input.nested);
  });

  it('keeps a combining mark that has no precomposed letter, and keys as sent', () => {
    expect(nfcStrings({ ['e\u0301']: 'x\u0301' })).toEqual({ ['e\u0301']: 'x\u0301' });
  });

  it('copies a __proto__ key as an own property, never as the prototype', () => {
    const sut = nfcStrings(JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(sut)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(sut, '__proto__')).toBe(true);
    expect((sut as { polluted?: string }).polluted).toBeUndefined();
  });

  it('handles nesting far deeper than the call stack allows', () => {
    let deep: unknown = DECOMPOSED;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let sut = nfcStrings(deep);
    for (let i = 0; i < 100_000; i++) sut = (sut as unknown[])[0];
    expect(sut).toBe(PRECOMPOSED);
  });
  it('replaces a lone surrogate by U+FFFD and keeps pairs', () => {
    expect(nfcStrings({ email: '\ud800', tail: 'a\udc00', pair: '\ud83d\ude00' })).toEqual({ email: '\ufffd', tail: 'a\ufffd', pair: '\ud83d\ude00' });
  });
});
