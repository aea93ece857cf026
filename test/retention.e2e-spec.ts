import { randomUUID } from 'node:crypto';
import { ScanCapturePurge } from '../src/modules/enrollment/services/scan-capture-purge';
import { HousekeepingService } from '../src/modules/events/housekeeping.service';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Every row that grows has a purge (issue 13). Events stay listable at least 30 days (CONTRACT
 * section 11) and an undelivered one is never purged; scan captures go 30 days after they expire.
 */
describe('Retention purges (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('retention');
  });

  afterAll(async () => {
    await app.close();
  });

  it('purges finished events older than 30 days with their delivery log, and expired scan captures; keeps everything else', async () => {
    const db = await app.db();
    const ids = { oldDelivered: randomUUID(), oldDead: randomUUID(), oldPending: randomUUID(), recentDelivered: randomUUID() };
    const scans = { old: randomUUID(), recent: randomUUID() };
    try {
      const event = (id: string, ageDays: number, delivered: boolean, dead: boolean) =>
        db.query(
          `insert into outbox_events (id, partner_id, program_code, event_type, payload, occurred_at, delivered_at, dead, next_attempt_at)
           values ($1, 'acme', 'sandbox', 'statementReady', '{}'::jsonb, now() - make_interval(days => $2), case when $3 then now() end, $4, case when not $3 and not $4 then now() end)`,
          [id, ageDays, delivered, dead],
        );
      await event(ids.oldDelivered, 31, true, false);
      await event(ids.oldDead, 40, false, true);
      await event(ids.oldPending, 45, false, false);
      await event(ids.recentDelivered, 29, true, false);
      await db.query(`insert into webhook_deliveries (event_id, attempt, url, status_code, duration_ms) values ($1, 1, 'http://127.0.0.1:9/hooks', 200, 5)`, [
        ids.oldDelivered,
      ]);
      const scan = (id: string, expiredDaysAgo: number) =>
        db.query(
          `insert into scan_captures (id, partner_id, program_code, id_type, id_number_enc, id_number_bidx, issuing_country, status, expires_at)
           values ($1, 'acme', 'sandbox', 'matricula', 'x', 'y', 'MX', 'completed', now() - make_interval(days => $2))`,
          [id, expiredDaysAgo],
        );
      await scan(scans.old, 31);
      await scan(scans.recent, 2);

      expect(await app.app.get(HousekeepingService, { strict: false }).purgeRetention()).toEqual({ events: 2 });
      expect(await app.app.get(ScanCapturePurge, { strict: false }).purge()).toBe(1);

      const { rows: events } = await db.query(`select id from outbox_events where id = any($1) order by id`, [Object.values(ids)]);
      expect(events.map((row: { id: string }) => row.id).sort()).toEqual([ids.oldPending, ids.recentDelivered].sort());
      const { rows: log } = await db.query(`select count(*)::int as n from webhook_deliveries where event_id = $1`, [ids.oldDelivered]);
      expect(log[0].n).toBe(0);
      const { rows: captures } = await db.query(`select id from scan_captures where id = any($1)`, [Object.values(scans)]);
      expect(captures.map((row: { id: string }) => row.id)).toEqual([scans.recent]);
    } finally {
      await db.end();
    }
  });
});
