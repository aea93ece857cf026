import { spawn } from 'node:child_process';
import { waitUntilQuiet } from './cpu-split';

/** A process that spins for `busyMs`, then sleeps until killed. */
function spinner(busyMs: number) {
  return spawn(process.execPath, ['-e', `const end = Date.now() + ${busyMs}; while (Date.now() < end); setInterval(() => {}, 60_000);`], { stdio: 'ignore' });
}

describe(waitUntilQuiet.name, () => {
  it('waits while the process works (leftover requests), and returns once it has been quiet for two windows', async () => {
    const child = spinner(600);
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      await waitUntilQuiet(child.pid);
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(500);
      expect(waited).toBeLessThan(2_000);
    } finally {
      child.kill();
    }
  });

  it('gives up after maxMs on a process that never goes quiet', async () => {
    const child = spinner(60_000);
    try {
      const started = Date.now();
      await waitUntilQuiet(child.pid, { maxMs: 400 });
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(400);
      expect(waited).toBeLessThan(1_000);
    } finally {
      child.kill();
    }
  });
});
