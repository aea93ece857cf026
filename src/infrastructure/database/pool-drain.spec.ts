import type { Pool } from 'pg';
import { drainPool } from './pool-drain';
import { mockOf } from '../../../test/support/mock-of';

function fakePool(counts: { totalCount: number; idleCount: number; waitingCount: number }): Pool {
  return mockOf<Pool>(counts);
}

describe('drainPool', () => {
  it('returns true at once when every client is idle and nobody waits', async () => {
    expect(await drainPool(fakePool({ totalCount: 3, idleCount: 3, waitingCount: 0 }), 1000)).toBe(true);
  });

  it('waits until the checked-out client comes back', async () => {
    const pool = { totalCount: 2, idleCount: 1, waitingCount: 0 };
    setTimeout(() => (pool.idleCount = 2), 60);
    const started = Date.now();
    expect(await drainPool(fakePool(pool), 5000, 10)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
  });

  it('waits for callers queued for a connection too', async () => {
    const pool = { totalCount: 1, idleCount: 1, waitingCount: 1 };
    setTimeout(() => (pool.waitingCount = 0), 40);
    expect(await drainPool(fakePool(pool), 5000, 10)).toBe(true);
  });

  it('gives up after the grace period and says so', async () => {
    expect(await drainPool(fakePool({ totalCount: 1, idleCount: 0, waitingCount: 0 }), 50, 10)).toBe(false);
  });
});
