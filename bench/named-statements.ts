import type { PoolClient } from 'pg';
import { statementConfig } from '../src/infrastructure/database/prepared-statements';

/**
 * The baselines' clients run the texts marked `prepared()` as named statements, as the service
 * runs them (pg's `{ name, text, values }`), so a baseline plans a statement no more often than the
 * service does. Bench harness only: the baselines' statements are plain `client.query(text, values)`.
 */
export function nameMarkedStatements(client: PoolClient): void {
  const query = client.query.bind(client) as (config: unknown, values?: unknown, callback?: unknown) => unknown;
  const named = (config: unknown, values?: unknown): boolean => typeof config === 'string' && (values === undefined || Array.isArray(values));
  Object.assign(client, {
    // A callback caller (pool.query) goes as it came.
    query: (config: unknown, values?: unknown, callback?: unknown) =>
      callback === undefined && named(config, values)
        ? query(statementConfig(config as string, (values as unknown[] | undefined) ?? []))
        : query(config, values, callback),
  });
}
