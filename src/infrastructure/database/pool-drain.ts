import type { Pool } from 'pg';

/**
 * Waits until no client of `pool` is checked out and nobody waits for one, at most `graceMs`;
 * false when the grace ran out first. For shutdown: a call can still be running after its HTTP
 * connection closed (its client went away, e.g. a timeout on the partner's side), and TypeORM's
 * destroy hands every checked-out client back to the pool as it ends it. The call would lose its
 * connection between two statements, and until the pool ended, a call waiting for a connection
 * could be given that one, in the middle of the first call's transaction.
 */
export async function drainPool(pool: Pool, graceMs: number, pollMs = 20): Promise<boolean> {
  const deadline = Date.now() + graceMs;
  while (pool.totalCount > pool.idleCount || pool.waitingCount > 0) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return true;
}
