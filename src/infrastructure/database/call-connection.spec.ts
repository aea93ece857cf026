import type { Client, QueryConfig } from 'pg';
import { EntityManager, QueryRunner } from 'typeorm';
import { DomainError } from '../../common/errors/domain-error';
import { CallConnection } from './call-connection';
import type { LockService } from './lock.service';
import { mockOf } from '../../../test/support/mock-of';

const LOCKS = ['account:a', 'user:u'];
const LOCK_SQL = "select set_config('lock_timeout', '100', true), pg_advisory_xact_lock($1::bigint)";
const LOCK_TIMEOUT = Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
/** What PostgreSQL answers every statement after a failed one in the same transaction. */
const ABORTED = Object.assign(new Error('current transaction is aborted'), { code: '25P02' });

/**
 * A call connection over a pg client that records each statement as it is issued (in order, before
 * any answer), and answers it once the test lets the round trip end (`answer()`), as a pipelined
 * session does.
 */
function harness(options: { failing?: (text: string) => Error | undefined } = {}) {
  const sent: string[] = [];
  const answers: Array<() => void> = [];
  let aborted = false;
  const query = (config: string | QueryConfig) => {
    const text = typeof config === 'string' ? config : config.text;
    sent.push(text);
    return new Promise((resolve, reject) => {
      answers.push(() => {
        const error = aborted && text !== 'commit' && text !== 'rollback' ? ABORTED : options.failing?.(text);
        if (error) {
          aborted = true;
          reject(error);
        } else resolve({ rows: [{ text }] });
      });
    });
  };
  const pg = mockOf<Client>({ query: jest.fn(query) as never, end: jest.fn().mockResolvedValue(undefined) });
  const answer = async () => {
    for (const reply of answers.splice(0)) reply();
    await new Promise((resolve) => setImmediate(resolve));
  };
  const manager = mockOf<EntityManager>({ transaction: jest.fn() });
  const runner = mockOf<QueryRunner>({ manager, release: jest.fn(async () => undefined) });
  manager.transaction.mockImplementation((async (work: (m: EntityManager) => Promise<unknown>) => {
    sent.push('start transaction (TypeORM)');
    const result = await work(manager);
    sent.push('commit (TypeORM)');
    return result;
  }) as never);
  const locks = mockOf<LockService>({
    lockStatement: jest.fn((names: readonly string[]) => (names.length > 0 ? { text: LOCK_SQL, values: ['1'] } : null)),
    failureOf: jest.fn((error: unknown) => ((error as { code?: string }).code === '55P03' ? new DomainError('LOCK_TIMEOUT') : null)),
    holdForSession: jest.fn(async (_manager: EntityManager, _names: readonly string[]) => {
      sent.push('session locks');
    }),
    releaseSession: jest.fn(async (_manager: EntityManager) => {
      sent.push('unlock all');
    }),
  });
  const names = jest.fn(() => LOCKS);
  return { sut: new CallConnection(runner, pg, locks, names), sent, answer, runner, manager, locks, names, pg };
}

describe(CallConnection.name, () => {
  it('BEGIN and the locks wait for the first statement and go with it, without waiting; its rows once the locks are held', async () => {
    const { sut, sent, answer, names } = harness();
    expect(names).not.toHaveBeenCalled();
    sut.begin();
    expect(sut.inTransaction).toBe(true);
    expect(sent).toEqual([]);
    // The work's first statement, through the call. On a session whose prepared statements pg has not
    // recorded (this mock's) they go one by one, pipelined; on a real one, under one Sync
    // (StatementGroup: test/statement-group.e2e-spec.ts, test/sql-round-trips.e2e-spec.ts).
    const read = sut.rows('select 1 from accounts where id = $1', ['a']);
    expect(sent).toEqual(['begin', LOCK_SQL, 'select 1 from accounts where id = $1']);
    await answer();
    await expect(sut.opened()).resolves.toBeUndefined();
    await expect(read).resolves.toEqual([{ text: 'select 1 from accounts where id = $1' }]);
  });

  it('anything else that reaches the session first (its manager) sends BEGIN and the locks before it', async () => {
    const { sut, sent, manager } = harness();
    sut.begin();
    expect(sut.manager).toBe(manager);
    expect(sent).toEqual(['begin', LOCK_SQL]);
  });

  it('a call that ends before its first statement sent nothing, and rolls nothing back', async () => {
    const { sut, sent, runner } = harness();
    sut.begin();
    await sut.release(true);
    expect(sent).toEqual([]);
    expect(sut.inTransaction).toBe(false);
    expect(runner.release).toHaveBeenCalledTimes(1);
  });

  it('a lock that waited too long: the statements after it fail, and the call answers with the locks’ refusal (503/503/1)', async () => {
    const { sut, answer } = harness({ failing: (text) => (text === LOCK_SQL ? LOCK_TIMEOUT : undefined) });
    sut.begin();
    const read = sut.rows('select 1', []).catch((e: unknown) => e);
    await answer();
    const error = await read;
    expect(error).toBe(ABORTED);
    await expect(sut.failureOf(error)).resolves.toMatchObject({ key: 'LOCK_TIMEOUT' });
    await expect(sut.opened()).rejects.toMatchObject({ key: 'LOCK_TIMEOUT' });
  });

  it('any other failure is answered as it is', async () => {
    const { sut, answer } = harness();
    sut.begin();
    await answer();
    const failure = new Error('the use case failed');
    await expect(sut.failureOf(failure)).resolves.toBe(failure);
  });

  it("runs work in the call's open transaction (no transaction of TypeORM's) and sends the batched writes with the one COMMIT", async () => {
    const { sut, sent, answer, manager } = harness();
    sut.begin();
    await expect(sut.run(async (m) => (m === manager ? 'on the call' : 'elsewhere'))).resolves.toBe('on the call');
    sut.batch.write('update users set email_enc = $2 where id = $1', ['u', 'e']);
    const committed = sut.commit();
    expect(sent.slice(-2)).toEqual(['update users set email_enc = $2 where id = $1', 'commit']);
    await answer();
    await committed;
    expect(manager.transaction).not.toHaveBeenCalled();
    expect(sut.inTransaction).toBe(false);
    expect(sut.batch.size).toBe(0);
  });

  it('a batched write that fails fails the COMMIT step (PostgreSQL rolls back)', async () => {
    const failure = Object.assign(new Error('duplicate key'), { code: '23505' });
    const { sut, answer } = harness({ failing: (text) => (text.startsWith('insert') ? failure : undefined) });
    sut.begin();
    sut.batch.write('insert into accounts (id) values ($1)', ['a']);
    const committed = sut.commit().catch((e: unknown) => e);
    await answer();
    await expect(committed).resolves.toBe(failure);
  });

  it('commitKeepingLocks: session locks, COMMIT; later work gets transactions of its own, a later batch goes alone; release drops the session locks', async () => {
    const { sut, sent, answer, locks, runner } = harness();
    sut.begin();
    await answer();
    const keeping = sut.commitKeepingLocks();
    await Promise.resolve();
    await answer();
    await keeping;
    await sut.run(async () => sent.push('phase'));
    sut.batch.write('update idempotency_keys set response_body = $1', ['x']);
    const last = sut.commit();
    await answer();
    await last;
    await sut.release(false);
    expect(locks.holdForSession).toHaveBeenCalledTimes(1);
    expect(sent).toEqual([
      'begin',
      LOCK_SQL,
      'session locks',
      'commit',
      'start transaction (TypeORM)',
      'phase',
      'commit (TypeORM)',
      'update idempotency_keys set response_body = $1',
      'unlock all',
    ]);
    expect(runner.release).toHaveBeenCalledTimes(1);
  });

  it('release after a failure rolls back and returns the connection; one that cannot roll back is closed first', async () => {
    const ok = harness();
    ok.sut.begin();
    void ok.sut.rows('select 1', []).catch(() => undefined);
    const released = ok.sut.release(true);
    await ok.answer();
    await Promise.resolve();
    await ok.answer();
    await released;
    expect(ok.sent).toEqual(['begin', LOCK_SQL, 'select 1', 'rollback']);
    expect(ok.pg.end).not.toHaveBeenCalled();
    expect(ok.runner.release).toHaveBeenCalledTimes(1);

    const broken = harness({ failing: (text) => (text === 'rollback' ? new Error('Connection terminated') : undefined) });
    broken.sut.begin();
    void broken.sut.rows('select 1', []).catch(() => undefined);
    const closing = broken.sut.release(true);
    await broken.answer();
    await Promise.resolve();
    await broken.answer();
    await closing;
    expect(broken.pg.end).toHaveBeenCalledTimes(1);
    expect(broken.runner.release).toHaveBeenCalledTimes(1);
  });
});
