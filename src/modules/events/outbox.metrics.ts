import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DELIVERY_DATA_SOURCE } from '../../infrastructure/database/database.module';
import { AppConfig } from '../../config/app-config';
import { Metrics } from '../../infrastructure/metrics/metrics';
import { OutboxRepository } from './outbox.repository';

/**
 * The outbox backlog at scrape time: events not yet delivered (nor given up) and the age of the
 * oldest, of the partners configured now (the poller claims no other partner's events, so one
 * removed from SERVICE_CONFIG would age the gauge, and its alert, for ever). Both gauges share one
 * query per scrape, on the poller's pool (a scrape never queues behind partners' locked calls).
 */
@Injectable()
export class OutboxMetrics implements OnModuleInit {
  private reading?: Promise<{ pending: number; oldestAgeSeconds: number }>;

  constructor(
    private readonly metrics: Metrics,
    private readonly outbox: OutboxRepository,
    @InjectDataSource(DELIVERY_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.metrics.observe('outbox_pending_events', 'Outbox events not yet delivered (nor given up)', [], async () => [{ value: (await this.read()).pending }]);
    this.metrics.observe('outbox_oldest_pending_age_seconds', 'Age of the oldest outbox event not yet delivered (0 when none)', [], async () => [
      { value: (await this.read()).oldestAgeSeconds },
    ]);
  }

  /**
   * The registry collects its gauges side by side: the second one joins the first one's read. The
   * read starts on the next turn of the event loop, once the scrape's other gauges have read their
   * sources: pg-pool queues a caller even for an idle connection until its next tick, and the
   * pool's gauge (db_client_connection_pending_requests) would otherwise count this very read as
   * a caller waiting, on every scrape of an idle instance.
   */
  private read(): Promise<{ pending: number; oldestAgeSeconds: number }> {
    this.reading ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() =>
        this.outbox.backlog(
          this.dataSource.manager,
          this.config.service.partners.map((partner) => partner.partnerId),
        ),
      )
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}
