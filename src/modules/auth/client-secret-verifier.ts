import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DomainError } from '../../common/errors/domain-error';
import { AppConfig } from '../../config/app-config';
import type { PartnerConfig } from '../../config/service-config';
import { ScryptHasher } from './client-secret';
import { BoundedLimit, boundedLimit, QueueFullError } from './bounded-limit';

export const CLIENT_SECRET_VERIFIER_OPTIONS = Symbol('CLIENT_SECRET_VERIFIER_OPTIONS');

export interface ClientSecretVerifierOptions {
  /** How long a verified secret is accepted without scrypt. */
  readonly cacheTtlMs: number;
  readonly maxCachedClients: number;
  /** scrypt runs on the 4-thread libuv pool that token signing (WebCrypto), jose, pino and fs share: leave them threads. */
  readonly maxConcurrentScrypt: number;
  /** The unknown ids' own lane (their dummy scrypt), beside the known clients' one. */
  readonly maxConcurrentUnknownScrypt: number;
  /** Verifications waiting for a slot, per lane; beyond it the token endpoint answers 503/503/2 at once. */
  readonly maxQueuedScrypt: number;
  readonly now: () => number;
}

export const DEFAULT_CLIENT_SECRET_VERIFIER_OPTIONS: ClientSecretVerifierOptions = {
  cacheTtlMs: 5 * 60_000,
  maxCachedClients: 1000,
  maxConcurrentScrypt: 2,
  maxConcurrentUnknownScrypt: 1,
  maxQueuedScrypt: 32,
  now: () => Date.now(),
};

interface Credentials {
  readonly clientId: string;
  readonly clientSecrets: readonly string[];
  readonly clientSecretHashes: readonly string[];
}

interface VerifiedSecret {
  readonly mac: Buffer;
  readonly expiresAtMs: number;
}

/**
 * Client authentication for the token endpoint. A verified secret is remembered as a keyed hash
 * under a per-process key for a bounded time, so scrypt runs only on a miss; a presented secret
 * whose keyed hash differs always gets the full verification, and failures are never cached.
 *
 * scrypt runs in two bounded lanes: known clients' and unknown ids' (whose dummy scrypt keeps
 * their timing like a wrong secret's), so a flood of made-up ids never queues a partner's
 * verification behind it. A full lane refuses at once (503/503/2) rather than queueing until the
 * request timeout. Only someone already flooding the unknown lane can tell its 503 from a known
 * id's 401, and the per-address rate limit bounds that flood.
 */
@Injectable()
export class ClientSecretVerifier {
  private readonly macKey = randomBytes(32);
  private readonly verified: LRUCache<string, VerifiedSecret[]>;
  private readonly knownLane: BoundedLimit;
  private readonly unknownLane: BoundedLimit;
  private readonly dummy: Credentials;

  constructor(
    config: AppConfig,
    private readonly hasher: ScryptHasher,
    @Inject(CLIENT_SECRET_VERIFIER_OPTIONS) private readonly options: ClientSecretVerifierOptions,
  ) {
    this.verified = new LRUCache({ max: options.maxCachedClients });
    this.knownLane = boundedLimit(options.maxConcurrentScrypt, options.maxQueuedScrypt);
    this.unknownLane = boundedLimit(options.maxConcurrentUnknownScrypt, options.maxQueuedScrypt);
    this.dummy = this.dummyCredentials(config.service.partners);
  }

  /** Whether `secret` is one of the partner's; an unknown client (undefined) costs what a wrong secret costs. */
  async verify(partner: PartnerConfig | undefined, secret: string): Promise<boolean> {
    const credentials = partner ?? this.dummy;
    const mac = this.mac(credentials.clientId, secret);
    if (partner && this.isCached(partner.clientId, mac)) return true;
    const valid = await this.verifyFully(credentials, mac, secret, partner ? this.knownLane : this.unknownLane);
    if (!partner || !valid) return false;
    this.remember(partner, mac);
    return true;
  }

  private isCached(clientId: string, mac: Buffer): boolean {
    const now = this.options.now();
    return (this.verified.get(clientId) ?? []).some((entry) => entry.expiresAtMs > now && timingSafeEqual(entry.mac, mac));
  }

  private remember(partner: PartnerConfig, mac: Buffer): void {
    const now = this.options.now();
    // One entry per configured credential, so a partner alternating two secrets while rotating stays cached.
    const keep = partner.clientSecrets.length + partner.clientSecretHashes.length;
    const others = (this.verified.get(partner.clientId) ?? []).filter((entry) => entry.expiresAtMs > now && !timingSafeEqual(entry.mac, mac));
    this.verified.set(partner.clientId, [...others, { mac, expiresAtMs: now + this.options.cacheTtlMs }].slice(-keep));
  }

  private async verifyFully(credentials: Credentials, mac: Buffer, secret: string, lane: BoundedLimit): Promise<boolean> {
    let plainMatch = false;
    // Every plain secret is compared (no early exit), each as equal-length keyed hashes in constant time.
    for (const plain of credentials.clientSecrets) plainMatch = timingSafeEqual(mac, this.mac(credentials.clientId, plain)) || plainMatch;
    if (plainMatch) return true;
    try {
      for (const phc of credentials.clientSecretHashes) {
        if (await lane(() => this.hasher.matches(secret, phc))) return true;
      }
    } catch (error) {
      if (error instanceof QueueFullError) throw new DomainError('DEPENDENCY_UNAVAILABLE');
      throw error;
    }
    return false;
  }

  /**
   * SHA-256 of the per-process key, the client id and the secret, in one call. Not an HMAC: these
   * digests never leave the process and are only compared with one another, so length extension
   * gives nothing, while OpenSSL's per-call HMAC set-up was most of the cost of a cached check.
   */
  private mac(clientId: string, secret: string): Buffer {
    return hash('sha256', Buffer.concat([this.macKey, Buffer.from(`${clientId}\0${secret}`)]), 'buffer');
  }

  /**
   * What an unknown client id is verified against: random hashes shaped like those of the partner
   * whose verification costs the most (the dearest wrong guess), or a random plain secret when no
   * partner is hashed, so the answer's timing does not reveal which ids exist.
   */
  private dummyCredentials(partners: readonly PartnerConfig[]): Credentials {
    const cost = (p: PartnerConfig) => p.clientSecretHashes.reduce((sum, phc) => sum + this.hasher.cost(phc), 0);
    const dearest = partners.reduce<PartnerConfig | undefined>((most, p) => (cost(p) > (most ? cost(most) : 0) ? p : most), undefined);
    const clientSecretHashes = (dearest?.clientSecretHashes ?? []).flatMap((phc) => this.hasher.dummyLike(phc) ?? []);
    const clientSecrets = clientSecretHashes.length > 0 ? [] : [randomBytes(32).toString('hex')];
    return { clientId: '', clientSecrets, clientSecretHashes };
  }
}
