import { describePlan, dominantPlan, statementKind } from './sql-plan';

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
});
