import { DynamicModule, Global, Module } from '@nestjs/common';
import { DatabasePoolMetrics } from './database-pool.metrics';
import { Metrics } from './metrics';

/** Global: the process's one Prometheus registry, created before the app (main.ts installs its hook on Fastify). */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(metrics: Metrics): DynamicModule {
    return { module: MetricsModule, providers: [{ provide: Metrics, useValue: metrics }], exports: [Metrics] };
  }
}

/** The pools' gauges: beside DatabaseModule (whose DataSources they read), apart from the registry itself. */
@Module({ providers: [DatabasePoolMetrics] })
export class DatabasePoolMetricsModule {}
