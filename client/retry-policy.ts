/**
 * The API's retry policy: only on HTTP 503, the exact same request, at most 3 retries, after a
 * random wait drawn from 1-1000 ms, 1000-5000 ms, then 5000-30000 ms. Never on 400 or 500.
 */
export interface RetryPolicy {
  /** Wait range [min, max] in ms for retry 1, 2, 3. */
  readonly ranges: ReadonlyArray<readonly [number, number]>;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
}

export const SERVICE_RETRY_RANGES: ReadonlyArray<readonly [number, number]> = [
  [1, 1000],
  [1000, 5000],
  [5000, 30000],
];

export const defaultRetryPolicy: RetryPolicy = {
  ranges: SERVICE_RETRY_RANGES,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

export function retryDelay(policy: RetryPolicy, retry: number): number {
  const [min, max] = policy.ranges[retry];
  return Math.floor(min + policy.random() * (max - min + 1));
}

export function shouldRetry(status: number): boolean {
  return status === 503;
}
