import { asBaselineRead, describePlan, dominantPlan, encodeValues, replayPlan, statementKind } from './sql-plan';
import { Client } from 'pg';

describe('bench SQL plan letters', () => {
  it('classes plain statements by their first word', () => {
    expect(
      ['begin', 'select 1', 'insert into t values (1)', 'update t set a = 1', 'delete from t', 'commit', 'rollback', 'set x = 1'].map(statementKind).join(''),
    ).toBe('BSIUDCRO');
  });

  it('classes a writable CTE by its first data-changing verb, so that baseline (a) writes where the service does', () => {
    expect(statementKind('with w0 as (update user_addresses set a = $1 returning id) insert into outbox_events select 1')).toBe('U');
    expect(statementKind('WITH a AS (INSERT INTO accounts VALUES ($1) RETURNING id) SELECT id FROM a')).toBe('I');
    expect(statementKind('with gone as (delete from t where id = $1 returning id) select count(*) from gone')).toBe('D');
  });

  it('keeps a read-only CTE, with or without row locks, and column names that contain a verb, as a select', () => {
    expect(statementKind('with x as (select updated_at, inserted_by from t for update) select * from x')).toBe('S');
    expect(statementKind('with x as (select 1 from t for no key update) select * from x')).toBe('S');
  });

  it('names the most frequent plan and counts its letters', () => {
    expect(dominantPlan(['BSUC', 'S', 'BSUC'])).toBe('BSUC');
    expect(describePlan('BSUC')).toBe('1B 1S 1U 1C');
  });

  it("runs (a)'s selects as the service's recorded reads, without their row locks, and trivial statements for the rest", async () => {
    const recorded = {
      text: 'select a.id from accounts a join users u on u.account_id = a.id where a.id = $1\n   for update of a',
      values: encodeValues(['acc-1', Buffer.from('k'), new Date('2026-11-23T00:00:00Z')]),
      named: false,
    };
    const read = asBaselineRead(recorded);
    expect(read.text).toBe('select a.id from accounts a join users u on u.account_id = a.id where a.id = $1');
    expect(read.values).toEqual(['acc-1', Buffer.from('k'), '2026-11-23T00:00:00.000Z']);
    expect(asBaselineRead({ text: 'with x as (select 1 from t for no key update skip locked) select * from x', values: [], named: false }).text).toBe(
      'with x as (select 1 from t) select * from x',
    );
    const sent: string[] = [];
    // A client that never connects: each statement is recorded, none is sent.
    const client = Object.assign(new Client(), { query: async (text: string) => void sent.push(text), release: () => undefined });
    await replayPlan(client, 'BSUSC', 'p', [read]);
    expect(sent).toEqual([
      'begin',
      read.text,
      'update bench_rows set payload = $1, updated_at = now() where id = $2',
      'select id, payload, updated_at from bench_rows where id = $1',
      'commit',
    ]);
  });
});
