import { createHash } from 'node:crypto';

/**
 * A named kind of background job with its delivery guarantees. `retryLimit` counts pg-boss retries
 * after a handler failure (a thrown error or a crash that expires the job); handlers must be
 * idempotent because a job whose handler died half-way runs again.
 */
export interface JobDefinition<TData extends object> {
  readonly name: string;
  readonly retryLimit: number;
  readonly retryDelaySeconds: number;
  readonly retryBackoff?: boolean;
  /** A job still active after this long is presumed dead (crashed instance) and retried. */
  readonly expireInSeconds: number;
  /** Phantom member so that `send` and `work` agree on the payload type. */
  readonly __data?: TData;
}

export function defineJob<TData extends object>(definition: Omit<JobDefinition<TData>, '__data'>): JobDefinition<TData> {
  return definition;
}

/** A job run on a daily cron tick (a purge): retried 3 times, 5 minutes apart; presumed dead after 10 minutes. */
export function defineDailyJob(name: string): JobDefinition<Record<string, never>> {
  return defineJob({ name, retryLimit: 3, retryDelaySeconds: 300, expireInSeconds: 600 });
}

export interface SendJobOptions {
  /** Delay before the job may run; measured on the database clock. */
  startAfterMs?: number;
  /**
   * A deterministic job id (UUID): a second send with the same id while the first is still kept
   * is dropped, which makes "enqueue once" safe across instances and retries.
   */
  id?: string;
}

export interface WorkOptions {
  /** Jobs fetched per poll and run concurrently. */
  batchSize?: number;
  pollingIntervalSeconds?: number;
}

export interface JobContext {
  readonly id: string;
  /** 0 on the first run, then 1, 2, … for pg-boss retries after failures. */
  readonly retryCount: number;
}

export type JobHandler<TData extends object> = (data: TData, context: JobContext) => Promise<void>;

/** A stable UUID (RFC 9562 version 8) for a job identified by its parts, e.g. (eventId, attempt). */
export function deterministicJobId(...parts: Array<string | number>): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
