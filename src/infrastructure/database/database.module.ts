import { Global, Module, Logger } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { EventEmitter } from 'node:events';
import { DataSource, DataSourceOptions } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { BlindIndexVersionCheck } from './blind-index-version';
import { dataSourceOptions } from './data-source-options';

interface PgPoolLike extends EventEmitter {
  _clients?: EventEmitter[];
}

const logger = new Logger('Database');

/**
 * A checked-out pg client that loses its server (restart, failover) can emit 'error' twice;
 * TypeORM listens only once, and an unheard 'error' would end the process. Every client of the
 * pool gets a permanent listener, so an outage costs the calls in flight (503), never the process.
 */
function guardPoolClients(dataSource: DataSource): void {
  const pool = (dataSource.driver as unknown as { master?: PgPoolLike }).master;
  if (!pool) return;
  const guard = (client: EventEmitter) => {
    client.on('error', (error: Error & { code?: string }) => logger.warn({ errorCode: error.code }, 'database connection lost'));
  };
  pool._clients?.forEach(guard);
  pool.on('connect', guard);
}

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(requireUrl(config), config.env.dbSchema, config.env.dbPoolSize, config.env.dbStatementTimeoutMs, config.env.dbQueryTimeoutMs),
        entities: undefined,
        autoLoadEntities: true,
        retryAttempts: 3,
        retryDelay: 500,
      }),
      dataSourceFactory: async (options?: DataSourceOptions) => {
        const dataSource = await new DataSource(options as DataSourceOptions).initialize();
        guardPoolClients(dataSource);
        return dataSource;
      },
    }),
  ],
  providers: [BlindIndexVersionCheck],
})
export class DatabaseModule {}

function requireUrl(config: AppConfig): string {
  if (!config.env.databaseUrl) throw new Error('DATABASE_URL was not resolved before the app started');
  return config.env.databaseUrl;
}
