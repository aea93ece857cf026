import * as path from 'node:path';
import type { DataSourceOptions } from 'typeorm';

/**
 * `lock_timeout` of every pooled connection: none (statement_timeout bounds every statement). A
 * call's advisory locks wait at most LOCK_WAIT_MS: lock.service.ts sets lock_timeout around them
 * and then puts this value back.
 */
export const DB_LOCK_TIMEOUT_DEFAULT = 0;

/** How many connections a pool may open, and how many of them it keeps open while idle. */
export interface PoolSize {
  max: number;
  /**
   * Connections kept past pg's idle timeout (10 s; node-postgres Pool `min`): a burst after a quiet
   * spell then finds them connected, with their prepared statements, instead of opening them while
   * it waits (docs/operations.md, "Pool"). Above it, idle connections close after 10 s.
   */
  min: number;
}

/**
 * The one place that describes how to reach PostgreSQL; used by the app and by `ormconfig.ts`.
 * `statementTimeoutMs` bounds every statement on the server (0: none, for migrations);
 * `queryTimeoutMs` bounds, on the client, the wait for any answer (pg `query_timeout`; 0: none), so a
 * database that accepts bytes and never answers fails the query instead of holding its connection;
 * `connectionTimeoutMillis` bounds a connect and a wait for a free pooled connection; TCP keepalive
 * notices a database host that went away.
 */
export function dataSourceOptions(
  url: string,
  schema = 'public',
  pool: PoolSize = { max: 20, min: 0 },
  statementTimeoutMs = 0,
  queryTimeoutMs = 0,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    schema,
    synchronize: false,
    migrationsRun: false,
    migrationsTableName: 'migrations',
    migrations: [path.join(__dirname, 'migrations', '*.{ts,js}')],
    entities: [path.join(__dirname, '..', '..', 'modules', '**', 'entities', '*.entity.{ts,js}')],
    logging: false,
    extra: {
      max: pool.max,
      min: pool.min,
      // Unqualified names resolve to the service's schema (tests give each file its own).
      options: `-c search_path=${schema} -c statement_timeout=${statementTimeoutMs} -c lock_timeout=${DB_LOCK_TIMEOUT_DEFAULT}`,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 5000,
      ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
      application_name: 'enrollment-service',
    },
  };
}
