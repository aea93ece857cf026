import { randomBytes, scryptSync } from 'node:crypto';
import { ScryptHasher } from './client-secret';

describe(ScryptHasher.name, () => {
  const salt = randomBytes(16);
  const phc = (hash: Buffer) => `$scrypt$ln=4,r=8,p=1$${salt.toString('base64')}$${hash.toString('base64')}`;
  const sut = new ScryptHasher();

  it('matches the secret the PHC was made of, and no other', async () => {
    const stored = phc(scryptSync('right', salt, 32, { N: 16, r: 8, p: 1 }));
    expect(await sut.matches('right', stored)).toBe(true);
    expect(await sut.matches('wrong', stored)).toBe(false);
  });

  it('admits no secret against a PHC whose hash is empty or short (scrypt would compute as few bytes, and match)', async () => {
    expect(await sut.matches('anything-at-all', phc(Buffer.alloc(0)))).toBe(false);
    const oneByte = phc(scryptSync('right', salt, 1, { N: 16, r: 8, p: 1 }));
    expect(await sut.matches('right', oneByte)).toBe(false);
    expect(sut.dummyLike(phc(Buffer.alloc(0)))).toBeUndefined();
  });
});
