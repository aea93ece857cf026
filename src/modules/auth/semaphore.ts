/** A task refused because every slot is busy and the wait queue is full. */
export class SemaphoreFullError extends Error {
  constructor() {
    super('semaphore queue full');
    this.name = 'SemaphoreFullError';
  }
}

/**
 * At most `limit` tasks at once; at most `maxWaiting` more wait, in arrival order; beyond that a
 * task is refused at once (SemaphoreFullError) rather than left to wait until the request timeout.
 * Hand-written because p-limit and p-queue are ESM-only since their current majors, which Jest 29's
 * CommonJS runtime does not load; p-limit's last CommonJS major has no bound on its queue.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
    else if (this.waiting.length >= this.maxWaiting) throw new SemaphoreFullError();
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, so a new arrival cannot overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
