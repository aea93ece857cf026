import { generateKeyPairSync } from 'node:crypto';
import { compactDecrypt, decodeProtectedHeader } from 'jose';
import type { KeyStore } from './key-store';
import { JweService } from './jwe.service';

describe(JweService.name, () => {
  const sut = new JweService({} as KeyStore);
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;

  it("seals an answer to the partner's key, naming it by its kid so the partner knows which of its keys opens it", async () => {
    const sealed = await sut.encryptForPartner({ firstName: 'José' }, { ...jwk, kid: 'partner-key-2' });
    expect(decodeProtectedHeader(sealed)).toEqual({ alg: 'ECDH-ES', enc: 'A256GCM', cty: 'application/json', kid: 'partner-key-2', epk: expect.any(Object) });
    const { plaintext } = await compactDecrypt(sealed, privateKey);
    expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual({ firstName: 'José' });
  });

  it('names no kid for a key without one', async () => {
    expect(decodeProtectedHeader(await sut.encryptForPartner({}, jwk))).not.toHaveProperty('kid');
  });
});
