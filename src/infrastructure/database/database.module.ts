import { Global, Module, Logger } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { EventEmitter } from 'node:events';
import type { Pool } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { BlindIndexVersionCheck } from './blind-index-version';
import { dataSourceOptions, pgPoolOf } from './data-source-options';
import { LockService } from './lock.service';
import { wrapClientQuery } from './prepared-statements';
import { TransactionRunner } from './transaction-runner';

const logger = new Logger('Database');

/** The pools' options, and whether their clients run the marked statements as prepared ones (DB_PREPARED_STATEMENTS). */
type PoolOptions = DataSourceOptions & { preparedStatements?: boolean };

/**
 * A checked-out pg client that loses its server (restart, failover) can emit 'error' twice;
 * TypeORM listens only once, and an unheard 'error' would end the process. Every client of the
 * pool gets a permanent listener, so an outage costs the calls in flight (503), never the process;
 * and its query runs the statements marked `prepared()` as prepared ones (unless turned off) and
 * sends the statements sent ahead with the next one (prepared-statements.ts).
 */
function guardPoolClients(dataSource: DataSource, prepared: boolean): void {
  // pg's own list of the pool's clients (not in its types): those connected before this runs.
  const pool = pgPoolOf(dataSource) as Pool & { _clients?: EventEmitter[] };
  const guard = (client: EventEmitter) => {
    client.on('error', (error: Error & { code?: string }) => logger.warn({ errorCode: error.code }, 'database connection lost'));
    wrapClientQuery(client as never, prepared);
  };
  pool._clients?.forEach(guard);
  pool.on('connect', guard);
}

/**
 * The webhook poller's own small pool: its claims and records must not queue behind locked calls,
 * which hold the app pool's connections for their whole length under load (pg-boss had its own pool
 * for the same reason).
 */
export const DELIVERY_DATA_SOURCE = 'delivery';
const DELIVERY_POOL_SIZE = 2;

/**
 * Global because every module reads and writes through the one DataSource: the connection pool,
 * the transactions of a call (TransactionRunner) and the advisory locks (LockService).
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(requireUrl(config), config.env.dbSchema, config.env.dbPoolSize, config.env.dbStatementTimeoutMs, config.env.dbQueryTimeoutMs),
        entities: undefined,
        autoLoadEntities: true,
        preparedStatements: config.env.dbPreparedStatements,
        retryAttempts: 3,
        retryDelay: 500,
      }),
      dataSourceFactory: initialize,
    }),
    TypeOrmModule.forRootAsync({
      name: DELIVERY_DATA_SOURCE,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        const options = dataSourceOptions(
          requireUrl(config),
          config.env.dbSchema,
          DELIVERY_POOL_SIZE,
          config.env.dbStatementTimeoutMs,
          config.env.dbQueryTimeoutMs,
        );
        return {
          ...options,
          name: DELIVERY_DATA_SOURCE,
          entities: [],
          migrations: [],
          extra: { ...options.extra, application_name: 'enrollment-service-delivery' },
          preparedStatements: config.env.dbPreparedStatements,
          retryAttempts: 3,
          retryDelay: 500,
        };
      },
      dataSourceFactory: initialize,
    }),
  ],
  providers: [TransactionRunner, LockService, BlindIndexVersionCheck],
  exports: [TransactionRunner, LockService],
})
export class DatabaseModule {}

/** Every pool of the process: initialised, its clients guarded (and preparing their statements). */
async function initialize(options?: DataSourceOptions): Promise<DataSource> {
  const { preparedStatements = false, ...rest } = (options ?? {}) as PoolOptions;
  const dataSource = await new DataSource(rest as DataSourceOptions).initialize();
  guardPoolClients(dataSource, preparedStatements);
  return dataSource;
}

function requireUrl(config: AppConfig): string {
  if (!config.env.databaseUrl) throw new Error('DATABASE_URL was not resolved before the app started');
  return config.env.databaseUrl;
}
