import { defineJob } from '../../infrastructure/queue/job-definition';

/** Delivers the next attempt of one outbox event. Idempotent: an attempt is claimed atomically first. */
export const WEBHOOK_DELIVERY_JOB = defineJob<{ eventId: string }>({
  name: 'webhook-delivery',
  // Retries cover a failing handler (database trouble), not a failing receiver: those are outbox attempts.
  retryLimit: 10,
  retryDelaySeconds: 30,
  retryBackoff: true,
  // An attempt takes at most the 10 s HTTP timeout; a job held by a crashed instance comes back
  // after this plus one maintenance pass (30 s), instead of minutes later.
  expireInSeconds: 30,
});

/** Re-enqueues outbox events that are due but whose job was lost (the outbox is the source of truth). */
export const OUTBOX_SWEEP_JOB = defineJob<Record<string, never>>({
  name: 'outbox-sweep',
  retryLimit: 0,
  retryDelaySeconds: 0,
  expireInSeconds: 120,
});
