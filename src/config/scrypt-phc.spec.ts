import { MIN_HASH_BYTES, MIN_SALT_BYTES, parseScryptPhc } from './scrypt-phc';

describe(parseScryptPhc.name, () => {
  const salt = Buffer.alloc(MIN_SALT_BYTES, 1).toString('base64');
  const hash = Buffer.alloc(MIN_HASH_BYTES, 2).toString('base64');

  it('reads the parameters, salt and hash of a well-formed PHC (r and p default to 8 and 1)', () => {
    expect(parseScryptPhc(`$scrypt$ln=14,r=8,p=2$${salt}$${hash}`)).toEqual({
      ln: 14,
      r: 8,
      p: 2,
      salt: Buffer.alloc(MIN_SALT_BYTES, 1),
      hash: Buffer.alloc(MIN_HASH_BYTES, 2),
    });
    expect(parseScryptPhc(`$scrypt$ln=14$${salt}$${hash}`)).toMatchObject({ r: 8, p: 1 });
  });

  it.each([
    ['plain', /scrypt PHC string/],
    [`$argon2id$ln=14$${salt}$${hash}`, /scrypt PHC string/],
    [`$scrypt$ln=14,r=8,p=1$${salt}$${hash}$extra`, /scrypt PHC string/],
    [`$scrypt$ln=0,r=8,p=1$${salt}$${hash}`, /out of range/],
    [`$scrypt$ln=21,r=8,p=1$${salt}$${hash}`, /out of range/],
    [`$scrypt$ln=14,r=x,p=1$${salt}$${hash}`, /out of range/],
    [`$scrypt$ln=14,r=8,p=0$${salt}$${hash}`, /out of range/],
    [`$scrypt$ln=14,r=8,p=1$${salt}$`, /at least 32/],
    [`$scrypt$ln=14,r=8,p=1$${salt}$**`, /base64/],
    [`$scrypt$ln=14,r=8,p=1$${salt}$${hash.slice(0, 8)}`, /at least 32/],
    [`$scrypt$ln=14,r=8,p=1$c2FsdA==$${hash}`, /salt of at least 16/],
  ])('refuses %s', (phc, reason) => {
    const parsed = parseScryptPhc(phc);
    expect('refused' in parsed && parsed.refused).toMatch(reason);
  });
});
