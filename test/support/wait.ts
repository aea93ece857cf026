/** Polls `check` until it holds; throws when it still does not after `timeoutMs`. */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 20_000, pollMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
