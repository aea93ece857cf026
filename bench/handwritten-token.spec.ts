import { createPublicKey, verify } from 'node:crypto';
import { HandwrittenToken, SignOnce } from './handwritten-token';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('baseline (c) of the token scenario', () => {
  const token = new HandwrittenToken('acme', 's3cret', 'enrollments users', 'http://127.0.0.1');
  const grant = { grant_type: 'client_credentials' };

  it('issues an RFC 9068 token signed ES256, answered as RFC 6749 §5.1 with no-store', async () => {
    const answer = await token.issue(basic('acme', 's3cret'), grant);
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    const body = JSON.parse(answer.body) as { access_token: string; token_type: string; expires_in: number; scope: string };
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'enrollments users' });
    const [header, claims, signature] = body.access_token.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: 'bench-handwritten' });
    expect(JSON.parse(Buffer.from(claims, 'base64url').toString())).toMatchObject({
      client_id: 'acme',
      sub: 'acme',
      iss: 'http://127.0.0.1',
      aud: 'http://127.0.0.1/v1',
      scope: 'enrollments users',
    });
    const publicKey = createPublicKey(token.signingKey);
    const signed = Buffer.from(`${header}.${claims}`);
    expect(verify('sha256', signed, { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))).toBe(true);
  });

  it('refuses a wrong secret, an unknown client and another grant', async () => {
    expect((await token.issue(basic('acme', 'wrong'), grant)).status).toBe(401);
    expect((await token.issue(basic('other', 's3cret'), grant)).status).toBe(401);
    expect((await token.issue(undefined, grant)).status).toBe(401);
    expect((await token.issue(basic('acme', 's3cret'), { grant_type: 'password' })).status).toBe(400);
  });

  it("the ceiling's route makes one ES256 signature (r‖s, 64 bytes) per call, each a fresh one", async () => {
    const once = await SignOnce.create();
    const [first, second] = [Buffer.from(await once.sign()), Buffer.from(await once.sign())];
    expect(first).toHaveLength(64);
    expect(second).toHaveLength(64);
    expect(first.equals(second)).toBe(false);
  });
});
