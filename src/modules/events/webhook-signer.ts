import { createHmac, createSecretKey, KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * Each partner secret's key, imported once: on Node 24 an HMAC made from a raw Buffer key costs
 * more per call than one made from a KeyObject (docs/design-notes.md). Bounded: secrets come from the
 * configuration, a few per partner, and a reloaded configuration may bring new ones.
 */
const keys = new LRUCache<string, KeyObject>({ max: 256 });

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64'));
    keys.set(secret, key);
  }
  return key;
}

/**
 * Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed with
 * the base64-decoded part of the partner's `whsec_` secret.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}
