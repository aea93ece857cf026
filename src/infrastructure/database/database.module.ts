import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { BlindIndexVersionCheck } from './blind-index-version';
import { DatabasePools, DatabasePoolsModule } from './database-pools';
import { dataSourceOptions } from './data-source-options';
import { LockService } from './lock.service';
import { PartnerInFlight } from './partner-in-flight';
import { namePreparedStatements } from './prepared-statements';
import { TransactionRunner } from './transaction-runner';

/**
 * The webhook poller's own small pool: its claims and records must not queue behind locked calls,
 * which hold the app pool's connections for their whole length under load (pg-boss had its own pool
 * for the same reason).
 */
export const DELIVERY_DATA_SOURCE = 'delivery';
const DELIVERY_POOL_SIZE = 2;

/**
 * Global because every module reads and writes through the one DataSource: the connection pool,
 * the transactions of a call (TransactionRunner), the advisory locks (LockService) and each
 * partner's share of the pool (PartnerInFlight).
 */
@Global()
@Module({
  imports: [
    DatabasePoolsModule,
    TypeOrmModule.forRootAsync({
      imports: [DatabasePoolsModule],
      inject: [AppConfig, DatabasePools],
      useFactory: (config: AppConfig, pools: DatabasePools) => {
        namePreparedStatements(config.env.dbPreparedStatements);
        const options = dataSourceOptions(
          requireUrl(config),
          config.env.dbSchema,
          { max: config.env.dbPoolSize, min: config.env.dbPoolMin },
          config.env.dbStatementTimeoutMs,
          config.env.dbQueryTimeoutMs,
        );
        return {
          ...options,
          // pg's pipeline mode: a statement goes out without waiting for the answers before it, so a
          // call's BEGIN and locks share a round trip with its first read (CallConnection).
          extra: { ...options.extra, pipeline: true },
          driver: pools.driverFor('default'),
          entities: undefined,
          autoLoadEntities: true,
          retryAttempts: 3,
          retryDelay: 500,
        };
      },
      dataSourceFactory: initialize,
    }),
    TypeOrmModule.forRootAsync({
      name: DELIVERY_DATA_SOURCE,
      imports: [DatabasePoolsModule],
      inject: [AppConfig, DatabasePools],
      useFactory: (config: AppConfig, pools: DatabasePools) => {
        const options = dataSourceOptions(
          requireUrl(config),
          config.env.dbSchema,
          { max: DELIVERY_POOL_SIZE, min: DELIVERY_POOL_SIZE },
          config.env.dbStatementTimeoutMs,
          config.env.dbQueryTimeoutMs,
        );
        return {
          ...options,
          name: DELIVERY_DATA_SOURCE,
          driver: pools.driverFor(DELIVERY_DATA_SOURCE),
          entities: [],
          migrations: [],
          extra: { ...options.extra, application_name: 'enrollment-service-delivery' },
          retryAttempts: 3,
          retryDelay: 500,
        };
      },
      dataSourceFactory: initialize,
    }),
  ],
  providers: [TransactionRunner, LockService, PartnerInFlight, BlindIndexVersionCheck],
  exports: [TransactionRunner, LockService, PartnerInFlight, DatabasePoolsModule],
})
export class DatabaseModule {}

async function initialize(options?: DataSourceOptions): Promise<DataSource> {
  if (!options) throw new Error('the data source has no options');
  return new DataSource(options).initialize();
}

function requireUrl(config: AppConfig): string {
  if (!config.env.databaseUrl) throw new Error('DATABASE_URL was not resolved before the app started');
  return config.env.databaseUrl;
}
