import { Semaphore, SemaphoreFullError } from './semaphore';

describe(Semaphore.name, () => {
  it('runs `limit` tasks, queues `maxWaiting` more and refuses the next at once', async () => {
    const sut = new Semaphore(1, 1);
    const release: Array<() => void> = [];
    const task = () => new Promise<string>((resolve) => release.push(() => resolve('done')));
    const first = sut.run(task);
    const second = sut.run(task);
    await expect(sut.run(task)).rejects.toBeInstanceOf(SemaphoreFullError);
    release.shift()?.();
    expect(await first).toBe('done');
    await new Promise((resolve) => setImmediate(resolve));
    release.shift()?.();
    expect(await second).toBe('done');
    // Slots and queue are free again.
    const third = sut.run(async () => 'again');
    expect(await third).toBe('again');
  });
});
