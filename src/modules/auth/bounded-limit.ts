import pLimit from 'p-limit';

/** A task refused because every slot is busy and the wait queue is full. */
export class QueueFullError extends Error {
  constructor() {
    super('concurrency queue full');
    this.name = 'QueueFullError';
  }
}

export type BoundedLimit = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * At most `concurrency` tasks at once (p-limit, which runs the queue in arrival order); at most
 * `maxWaiting` more wait; beyond that a task is refused at once (QueueFullError) rather than left
 * to wait until the request timeout. p-limit has no bound on its queue: the bound is this check of
 * its public counts before a task is queued.
 */
export function boundedLimit(concurrency: number, maxWaiting = Number.POSITIVE_INFINITY): BoundedLimit {
  const limit = pLimit(concurrency);
  return <T>(task: () => Promise<T>): Promise<T> =>
    limit.activeCount >= limit.concurrency && limit.pendingCount >= maxWaiting ? Promise.reject(new QueueFullError()) : limit(task);
}
