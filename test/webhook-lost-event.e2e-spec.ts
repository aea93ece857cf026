import { randomUUID } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FinishedAttempt, OutboxRepository } from '../src/modules/events/outbox.repository';
import { startTestApp, TestApp } from './support/test-app';

function delivered(eventId: string): FinishedAttempt {
  return {
    eventId,
    attempt: 1,
    redeliveries: 0,
    outcome: { url: 'http://127.0.0.1:9/hooks', statusCode: 204, outcome: 'delivered', durationMs: 5 },
    next: { kind: 'delivered' },
    endedAt: new Date(),
  };
}

/**
 * After a failover to a standby that lagged (asynchronous replication), the poller can hold a
 * finished attempt of an event the new primary never had. Recording it must not fail the set it is
 * recorded with, or the poller retries that set, and records nothing else, until a restart.
 */
describe('Recording webhook attempts of an event that no longer exists (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('webhook-lost-event', { env: { JOBS_ENABLED: 'false' } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('the attempts of existing events are recorded; the one of the missing event is dropped', async () => {
    const sent = await app.client().post<{ eventId: string }>('/v1/webhooks/test', { eventType: 'accountUpdated' });
    expect(sent.status).toBe(200);
    const sut = app.app.get(OutboxRepository, { strict: false });
    const dataSource = app.app.get<DataSource>(getDataSourceToken(), { strict: false });

    await sut.finishAttempts(dataSource.manager, [delivered(randomUUID()), delivered(sent.body.eventId)]);

    const db = await app.db();
    try {
      const { rows } = await db.query(
        `select e.delivered_at is not null as delivered, (select count(*) from webhook_deliveries d where d.event_id = e.id)::int as attempts
           from outbox_events e where e.id = $1`,
        [sent.body.eventId],
      );
      expect(rows).toEqual([{ delivered: true, attempts: 1 }]);
    } finally {
      await db.end();
    }
  });
});
