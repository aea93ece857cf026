import {
  generateKeyMaterial,
  KeyStore,
  KeyStoreError,
  promoteStagedRotation,
  revokeKey,
  rotateKeyMaterial,
  stageRotation,
  STAGED_KEYS_ACCEPTED_SECONDS,
} from './key-store';

describe('a rotation in two steps (keys:rotate -- --stage, then --promote)', () => {
  it('stage lists fresh keys beside the current ones, which stay current; promote makes them current and the old ones previous', async () => {
    const before = await generateKeyMaterial();
    const staged = await stageRotation(before);
    expect({ signing: staged.signing, encryption: staged.encryption, currentDataKeyId: staged.currentDataKeyId }).toEqual({
      signing: before.signing,
      encryption: before.encryption,
      currentDataKeyId: before.currentDataKeyId,
    });
    const now = Math.floor(Date.now() / 1000);
    const [stagedSigning] = staged.previousSigning ?? [];
    expect(stagedSigning?.kid).toBe(staged.staged?.signing);
    expect(stagedSigning?.retiredAt).toBeGreaterThanOrEqual(now + STAGED_KEYS_ACCEPTED_SECONDS - 5);
    expect(staged.previousEncryption?.[0]?.kid).toBe(staged.staged?.encryption);
    expect(Object.keys(staged.dataKeys)).toEqual(expect.arrayContaining([before.currentDataKeyId, staged.staged?.dataKey]));
    // Every instance given the staged document loads it.
    await expect(KeyStore.from(JSON.stringify(staged), false, '/nonexistent')).resolves.toBeInstanceOf(KeyStore);

    const promoted = promoteStagedRotation(staged, { rolloutSeconds: 600 });
    expect(promoted.staged).toBeUndefined();
    expect(promoted.signing.kid).toBe(staged.staged?.signing);
    expect(promoted.signing).not.toHaveProperty('retiredAt');
    expect(promoted.encryption.kid).toBe(staged.staged?.encryption);
    expect(promoted.currentDataKeyId).toBe(staged.staged?.dataKey);
    expect(promoted.previousSigning?.[0]).toMatchObject({ kid: before.signing.kid });
    expect(promoted.previousSigning?.[0]?.retiredAt).toBeGreaterThanOrEqual(now + 595);
    expect(promoted.previousEncryption?.map((jwk) => jwk.kid)).toEqual([before.encryption.kid]);
    expect(promoted.dataKeys).toEqual(staged.dataKeys);
    await expect(KeyStore.from(JSON.stringify(promoted), false, '/nonexistent')).resolves.toBeInstanceOf(KeyStore);
  });

  it('refuses out of order: a second stage or a one-step rotation over a staged document, a promote with nothing staged, a staged key not listed', async () => {
    const before = await generateKeyMaterial();
    const staged = await stageRotation(before);
    await expect(stageRotation(staged)).rejects.toBeInstanceOf(KeyStoreError);
    await expect(rotateKeyMaterial(staged)).rejects.toBeInstanceOf(KeyStoreError);
    expect(() => promoteStagedRotation(before)).toThrow(KeyStoreError);
    const broken = { ...staged, previousEncryption: [] };
    expect(() => promoteStagedRotation(broken)).toThrow(KeyStoreError);
    await expect(KeyStore.from(JSON.stringify(broken), false, '/nonexistent')).rejects.toThrow('staged names a key the document does not list');
  });

  it('refuses to revoke a staged key (the document would name a key it no longer lists), and revokes a previous one beside it', async () => {
    const before = await rotateKeyMaterial(await generateKeyMaterial());
    const staged = await stageRotation(before);
    for (const kid of [staged.staged?.signing, staged.staged?.encryption]) {
      expect(() => revokeKey(staged, String(kid))).toThrow(`${kid} is staged`);
    }
    const previous = String(before.previousSigning?.[0]?.kid);
    const revoked = revokeKey(staged, previous);
    expect(revoked.previousSigning?.map((jwk) => jwk.kid)).not.toContain(previous);
    await expect(KeyStore.from(JSON.stringify(revoked), false, '/nonexistent')).resolves.toBeInstanceOf(KeyStore);
  });
});
