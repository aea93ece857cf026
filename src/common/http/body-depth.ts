import type { FastifyRequest } from 'fastify';
import { DomainError } from '../errors/domain-error';

/** No request of the contract nests deeper than a handful of levels; 32 leaves ample room. */
export const MAX_BODY_DEPTH = 32;

/** True when objects/arrays nest deeper than `max` (iterative: a hostile body cannot overflow the stack here). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Refuses over-deep JSON before validation: class-transformer and the validation pipe recurse
 * per level, and a 64 KiB body of `{"a":{"a":…` overflowed the stack (a 500) before this hook.
 */
export async function bodyDepthHook(request: FastifyRequest): Promise<void> {
  if (nestedDeeperThan(request.body, MAX_BODY_DEPTH)) throw new DomainError('MALFORMED_JSON');
}
