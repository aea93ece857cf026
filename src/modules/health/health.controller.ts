import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors, errorExample, successExample } from '../../common/openapi/api-answers';
import { LiveResponseDto, NotReadyResponseDto, ReadyResponseDto } from './health-responses.dto';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Public } from '../../common/auth/decorators';
import { DomainError } from '../../common/errors/domain-error';
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
  @ApiOperation({ operationId: 'healthLive', security: [], summary: 'The process is up' })
  @ApiAnswer(LiveResponseDto, 'Up', { up: { summary: 'Up', value: successExample({ status: 'ok' }) } })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @ApiOperation({
    operationId: 'healthReady',
    security: [],
    summary: 'PostgreSQL reachable and writable, and every migration applied (else 503, code 503, subCode 2)',
  })
  @ApiAnswer(ReadyResponseDto, 'Ready', { ready: { summary: 'Ready', value: successExample({ status: 'ok', database: 'up', migrations: 'applied' }) } })
  @ApiResponse({
    status: 503,
    type: NotReadyResponseDto,
    description: 'Not ready (code 503, subCode 2), and why: the database read-only or down, or migrations pending',
    examples: {
      readOnly: {
        summary: 'The database refuses writes',
        value: errorExample('DEPENDENCY_UNAVAILABLE', { status: 'unavailable', database: 'read-only', migrations: 'applied' }),
      },
      down: {
        summary: 'The database cannot be reached',
        value: errorExample('DEPENDENCY_UNAVAILABLE', { status: 'unavailable', database: 'down', migrations: 'unknown' }),
      },
    },
  })
  async ready(): Promise<{ status: string; database: string; migrations: string }> {
    let database: 'up' | 'read-only' | 'down' = 'down';
    let migrations: 'applied' | 'pending' | 'unknown' = 'unknown';
    try {
      // A standby (or a primary being demoted) answers reads but refuses every write: not ready.
      const [{ readOnly }] = (await this.dataSource.query(`select current_setting('transaction_read_only') = 'on' as "readOnly"`)) as [{ readOnly: boolean }];
      database = readOnly ? 'read-only' : 'up';
      migrations = (await this.dataSource.showMigrations()) ? 'pending' : 'applied';
    } catch {
      // What was not read stays "down" or "unknown"; the driver's message is not an operator's answer.
    }
    // The operator's why; nothing here names a host, a statement or a driver message.
    if (database !== 'up' || migrations !== 'applied')
      throw new DomainError('DEPENDENCY_UNAVAILABLE', { payload: { status: 'unavailable', database, migrations } });
    return { status: 'ok', database, migrations };
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOkResponse({
    description: 'Prometheus text exposition format',
    content: { 'text/plain': { schema: { type: 'string' }, example: '# TYPE http_requests_total counter\nhttp_requests_total 1\n' } },
  })
  @ApiErrors({ 404: ['ROUTE_NOT_FOUND'] }, { 404: 'Production: metrics are served on the separate metrics port only' })
  @ApiOperation({
    operationId: 'metrics',
    security: [],
    summary: 'Prometheus metrics (text exposition format); sandbox only: production serves them on the separate metrics port, not here (404)',
  })
  async scrape(): Promise<string> {
    if (this.config.isProduction) throw new DomainError('ROUTE_NOT_FOUND');
    // Text with its own Content-Type: Fastify sends it as it is (no envelope).
    return this.metrics.registry.metrics();
  }
}
