import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Public } from '../../common/auth/decorators';
import { DomainError } from '../../common/errors/domain-error';
import { rawResponse, RawResponse } from '../../common/http/envelope.interceptor';
import { AppConfig } from '../../config/app-config';
import { Metrics } from '../../infrastructure/metrics/metrics';

@ApiTags('Operations')
@Controller()
@Public()
export class HealthController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
  ) {}

  @Get('health/live')
  @ApiOperation({ summary: 'The process is up' })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @ApiOperation({ summary: 'PostgreSQL reachable and every migration applied (else 503, code 503, subCode 2)' })
  async ready(): Promise<{ status: string; database: string; migrations: string }> {
    try {
      await this.dataSource.query('select 1');
      const pending = await this.dataSource.showMigrations();
      if (pending) throw new Error('pending migrations');
    } catch {
      throw new DomainError('DEPENDENCY_UNAVAILABLE');
    }
    return { status: 'ok', database: 'up', migrations: 'applied' };
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ summary: 'Prometheus metrics (text exposition format); sandbox only: production serves them on METRICS_PORT, not here (404)' })
  async scrape(): Promise<RawResponse> {
    if (this.config.isProduction) throw new DomainError('ROUTE_NOT_FOUND');
    return rawResponse(await this.metrics.registry.metrics());
  }
}
