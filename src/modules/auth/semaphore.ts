/**
 * At most `limit` tasks at once; the rest wait in arrival order. Hand-written (20 lines) because
 * p-limit and p-queue are ESM-only since their current majors and this service is CommonJS.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
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
