import { boundedLimit, QueueFullError } from './bounded-limit';

describe(boundedLimit.name, () => {
  it('runs `concurrency` tasks, queues `maxWaiting` more and refuses the next at once', async () => {
    const sut = boundedLimit(1, 1);
    const release: Array<() => void> = [];
    const task = () => new Promise<string>((resolve) => release.push(() => resolve('done')));
    const first = sut(task);
    const second = sut(task);
    await expect(sut(task)).rejects.toBeInstanceOf(QueueFullError);
    release.shift()?.();
    expect(await first).toBe('done');
    await new Promise((resolve) => setImmediate(resolve));
    release.shift()?.();
    expect(await second).toBe('done');
    // Slots and queue are free again.
    const third = sut(async () => 'again');
    expect(await third).toBe('again');
  });

  it('starts queued tasks in arrival order, so a new arrival cannot overtake the queue', async () => {
    const sut = boundedLimit(1, 2);
    const started: string[] = [];
    const release: Array<() => void> = [];
    const task = (name: string) => () =>
      new Promise<void>((resolve) => {
        started.push(name);
        release.push(resolve);
      });
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    const runs = [sut(task('a')), sut(task('b')), sut(task('c'))];
    await tick();
    release.shift()?.();
    await tick();
    // A slot freed and one queue place with it: the next arrival waits behind `c`.
    runs.push(sut(task('d')));
    while (release.length) {
      release.shift()?.();
      await tick();
    }
    await Promise.all(runs);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
  });
});
