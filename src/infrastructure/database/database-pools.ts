import { Global, Injectable, Logger, Module } from '@nestjs/common';
import { ClsServiceManager } from 'nestjs-cls';
import * as pg from 'pg';

const logger = new Logger('Database');

/**
 * The pg pools TypeORM builds for this app, kept as it builds them: TypeORM takes the pg module
 * through its documented `driver` option, and the module given here builds pools that register
 * themselves. For what needs the pool itself: the shutdown drain and the care console's session
 * store. Per app instance (tests run several apps in one process), so never module-level.
 */
@Injectable()
export class DatabasePools {
  private readonly pools = new Map<string, pg.Pool>();

  /** The pg module for TypeORM's `driver` option of the data source `name`. */
  driverFor(name: string): typeof pg {
    const register = (pool: pg.Pool) => this.pools.set(name, pool);
    class RegisteredPool extends pg.Pool {
      constructor(config?: pg.PoolConfig) {
        super({ ...config, onConnect: guardClient });
        register(this);
      }
    }
    return { ...pg, Pool: RegisteredPool };
  }

  /** The pool of data source `name` ('default': the app's), once TypeORM has built it. */
  pool(name = 'default'): pg.Pool {
    const pool = this.pools.get(name);
    if (!pool) throw new Error(`the ${name} data source has no pool yet`);
    return pool;
  }
}

/**
 * pg-pool's documented `onConnect`, for every new client: a checked-out client that loses its
 * server (restart, failover) can emit 'error' twice, and TypeORM listens only once; an unheard
 * 'error' would end the process. A permanent listener makes an outage cost the calls in flight
 * (503), never the process. The line is logged outside any request's context: the client's socket
 * carries the context of the request that happened to open it, maybe long answered, whose requestId
 * the line would otherwise carry (CONTRACT section 1: one id per request).
 */
function guardClient(client: pg.ClientBase): void {
  client.on('error', (error: Error & { code?: string }) =>
    ClsServiceManager.getClsService().exit(() => logger.warn({ errorCode: error.code }, 'database connection lost')),
  );
}

/** Global: the TypeORM root modules' factories inject it, before the DatabaseModule's own providers exist. */
@Global()
@Module({ providers: [DatabasePools], exports: [DatabasePools] })
export class DatabasePoolsModule {}
