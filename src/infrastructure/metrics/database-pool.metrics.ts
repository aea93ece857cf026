import { Injectable, OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { DELIVERY_DATA_SOURCE } from '../database/database.module';
import { DatabasePools } from '../database/database-pools';
import { Metrics } from './metrics';

/**
 * The process's PostgreSQL pools (the app's and the webhook poller's) as OpenTelemetry's
 * `db.client.connection.*` metrics, summed over both: connections idle and used, and callers
 * waiting for one. Read from pg's public Pool counters at scrape time (no query).
 */
@Injectable()
export class DatabasePoolMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly pools: DatabasePools,
  ) {}

  onModuleInit(): void {
    const pools = () => ['default', DELIVERY_DATA_SOURCE].map((name) => this.pools.pool(name));
    const sum = (count: (pool: Pool) => number) => pools().reduce((total, pool) => total + count(pool), 0);
    this.metrics.observe('db_client_connection_count', 'Database connections by state (idle, used), all pools of the process', ['state'], () => [
      { labels: { state: 'idle' }, value: sum((pool) => pool.idleCount) },
      { labels: { state: 'used' }, value: sum((pool) => pool.totalCount - pool.idleCount) },
    ]);
    this.metrics.observe('db_client_connection_pending_requests', 'Callers waiting for a database connection, all pools of the process', [], () => [
      { value: sum((pool) => pool.waitingCount) },
    ]);
  }
}
