/**
 * Baseline (c) of the token scenario: the essential work of a client_credentials token request
 * written by hand on a bare Fastify route, as a careful hand-written server would do it. It answers
 * "how fast can a token endpoint that signs every token go on this machine", next to (b), the same
 * route answering a constant, which issue 11's goal is set against (token ≥ 50% of (b)).
 *
 * Per request: the form body parsed (by the baseline server's form parser), `grant_type` checked,
 * the client authenticated from its `Authorization: Basic` header (the presented secret's SHA-256
 * under a per-process key prefix compared in constant time with the configured secret's, which is what the
 * service's ClientSecretVerifier does on a cache hit, the bench's steady state), an RFC 9068 access
 * token signed ES256 (the service's claims and header; by WebCrypto, which signs on libuv's pool
 * and leaves the event loop free, as the service's KeyStore does), and the RFC 6749 §5.1 answer with
 * `cache-control: no-store`. No rate limit, request log, metrics or request context.
 */
import { generateKeyPairSync, hash, KeyObject, randomBytes, randomUUID, timingSafeEqual, webcrypto } from 'node:crypto';
import { basicCredentials } from '../src/modules/auth/client-credentials';

/** What one request of (c) does, in order; the report prints it. */
export const HANDWRITTEN_TOKEN_WORK = [
  'form body parsed, grant_type checked',
  'client from the Basic header, keyed SHA-256 of the secret compared in constant time',
  'RFC 9068 claims signed ES256',
  'RFC 6749 answer, no-store',
] as const;

const TTL_SECONDS = 3600;
/** ES256 in WebCrypto's terms: the P-256 key, and the signature's algorithm (r‖s, as JWS wants it). */
const P256: webcrypto.EcKeyImportParams = { name: 'ECDSA', namedCurve: 'P-256' };
const ES256: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };
const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', pragma: 'no-cache' };

export interface HandwrittenTokenAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class HandwrittenToken {
  private readonly macKey = randomBytes(32);
  readonly signingKey: KeyObject = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  private readonly cryptoKey = webcrypto.subtle.importKey('pkcs8', this.signingKey.export({ format: 'der', type: 'pkcs8' }), P256, false, ['sign']);
  private readonly header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'bench-handwritten' })).toString('base64url');
  private readonly expectedMac: Buffer;

  constructor(
    private readonly clientId: string,
    clientSecret: string,
    private readonly scope: string,
    private readonly issuer: string,
  ) {
    this.expectedMac = this.mac(clientId, clientSecret);
  }

  async issue(authorization: string | undefined, form: Record<string, string> | undefined): Promise<HandwrittenTokenAnswer> {
    if (form?.grant_type !== 'client_credentials') return refused(400, 'unsupported_grant_type');
    const credentials = basicCredentials(authorization);
    if (!credentials || credentials.id !== this.clientId || !timingSafeEqual(this.mac(credentials.id, credentials.secret), this.expectedMac)) {
      return refused(401, 'invalid_client');
    }
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      client_id: this.clientId,
      scope: this.scope,
      iss: this.issuer,
      sub: this.clientId,
      aud: `${this.issuer}/v1`,
      iat: now,
      exp: now + TTL_SECONDS,
      jti: randomUUID(),
    };
    const input = `${this.header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const signature = await webcrypto.subtle.sign(ES256, await this.cryptoKey, Buffer.from(input));
    const token = `${input}.${Buffer.from(signature).toString('base64url')}`;
    return { status: 200, headers: HEADERS, body: JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: TTL_SECONDS, scope: this.scope }) };
  }

  private mac(id: string, secret: string): Buffer {
    return hash('sha256', Buffer.concat([this.macKey, Buffer.from(`${id}\0${secret}`)]), 'buffer');
  }
}

/**
 * The token scenario's ceiling, beside (b): the constant route plus one ES256 signature, made the
 * way (c) and the service sign (WebCrypto, on libuv's pool), over a token-sized input. A token route
 * must sign each token it issues (CONTRACT section 3: JWTs signed by the service), so no token
 * route on this machine answers faster than this one; the report prints its share of (b).
 */
export class SignOnce {
  private static readonly INPUT = Buffer.alloc(420, 'a');

  private constructor(private readonly key: webcrypto.CryptoKey) {}

  static async create(): Promise<SignOnce> {
    const pair = await webcrypto.subtle.generateKey(P256, false, ['sign', 'verify']);
    return new SignOnce(pair.privateKey);
  }

  async sign(): Promise<ArrayBuffer> {
    return webcrypto.subtle.sign(ES256, this.key, SignOnce.INPUT);
  }
}

function refused(status: number, error: string): HandwrittenTokenAnswer {
  return { status, headers: HEADERS, body: JSON.stringify({ error }) };
}
