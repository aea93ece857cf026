import type { Logger } from '@nestjs/common';

type OutcomeMethod = (...args: unknown[]) => Promise<unknown>;

let installed = false;

/**
 * pg-boss 10 records a batch's outcome with `this.complete(...)` / `this.fail(...)` after the
 * handler without awaiting them (src/manager.js, work → onFetch). While PostgreSQL restarts that
 * promise rejects unhandled and Node ends the process (seen in the soak: an instance died at the
 * database restart). A lost outcome is harmless: the job stays active, expires and runs again
 * (handlers are idempotent), so the rejection is logged instead.
 */
export function tolerateUnrecordedJobOutcomes(logger: Pick<Logger, 'warn'>): void {
  if (installed) return;
  installed = true;
  // Internal module of pg-boss 10 (no exports map): the class whose instances run the workers.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a deep path outside the package's typings
  const { prototype } = require('pg-boss/src/manager') as { prototype: Record<'complete' | 'fail', OutcomeMethod> };
  for (const method of ['complete', 'fail'] as const) {
    const original = prototype[method];
    prototype[method] = function guarded(this: unknown, ...args: unknown[]) {
      return original.apply(this, args).catch((error: Error & { code?: string }) => {
        logger.warn({ method, errorName: error?.name, errorCode: error?.code }, 'job outcome not recorded; the job will expire and run again');
        return undefined;
      });
    };
  }
}
