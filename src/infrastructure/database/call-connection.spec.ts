import { EntityManager, QueryResult, QueryRunner } from 'typeorm';
import { DomainError } from '../../common/errors/domain-error';
import { CallConnection } from './call-connection';
import type { LockService } from './lock.service';

/** A typed mock of the members a test gives; calling any other member fails the test. */
function mockOf<T>(members: Partial<jest.Mocked<T>>): jest.Mocked<T> {
  return members as jest.Mocked<T>;
}

const LOCKS = ['account:a', 'user:u'];
const OPENING = "begin; select pg_advisory_xact_lock('1'::bigint)";

function harness(options: { failing?: (text: string) => Error | undefined } = {}) {
  const sent: string[] = [];
  const pg = { end: jest.fn(async () => undefined) };
  const manager = mockOf<EntityManager>({ transaction: jest.fn() });
  const runner = mockOf<QueryRunner>({
    manager,
    connect: jest.fn(async () => pg),
    query: jest.fn(async (text: string): Promise<QueryResult> => {
      sent.push(text);
      const error = options.failing?.(text);
      if (error) throw error;
      return new QueryResult();
    }),
    release: jest.fn(async () => undefined),
  });
  manager.transaction.mockImplementation((async (work: (m: EntityManager) => Promise<unknown>) => {
    sent.push('start transaction');
    const result = await work(manager);
    sent.push('commit (TypeORM)');
    return result;
  }) as never);
  const locks = mockOf<LockService>({
    opening: jest.fn((_names: readonly string[]) => OPENING),
    failureOf: jest.fn((error: unknown) => ((error as { code?: string }).code === '55P03' ? new DomainError('LOCK_TIMEOUT') : null)),
    holdForSession: jest.fn(async (_manager: EntityManager, _names: readonly string[]) => {
      sent.push('session locks');
    }),
    releaseSession: jest.fn(async (_manager: EntityManager) => {
      sent.push('unlock all');
    }),
  });
  const names = jest.fn(() => LOCKS);
  return { sut: new CallConnection(runner, locks, names), sent, runner, manager, locks, names, pg };
}

describe(CallConnection.name, () => {
  it('opens the transaction with its locks in one statement, computing the lock names only then', async () => {
    const { sut, sent, locks, names } = harness();
    expect(names).not.toHaveBeenCalled();
    expect(sut.inTransaction).toBe(false);
    await sut.begin();
    expect(locks.opening).toHaveBeenCalledWith(LOCKS);
    expect(sent).toEqual([OPENING]);
    expect(sut.inTransaction).toBe(true);
  });

  it("answers a lock that waited too long with the locks' refusal, and release rolls the opened transaction back", async () => {
    const lockTimeout = Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
    const { sut, sent, runner } = harness({ failing: (text) => (text === OPENING ? lockTimeout : undefined) });
    await expect(sut.begin()).rejects.toMatchObject({ key: 'LOCK_TIMEOUT' });
    await sut.release(true);
    expect(sent).toEqual([OPENING, 'rollback']);
    expect(runner.release).toHaveBeenCalledTimes(1);
  });

  it('lets any other failure of the opening through as it is', async () => {
    const lost = new Error('Connection terminated');
    const { sut } = harness({ failing: (text) => (text === OPENING ? lost : undefined) });
    await expect(sut.begin()).rejects.toBe(lost);
  });

  it("runs work in the call's open transaction: no transaction of TypeORM's, one COMMIT", async () => {
    const { sut, sent, manager } = harness();
    await sut.begin();
    await expect(sut.run(async (m) => (m === manager ? 'on the call' : 'elsewhere'))).resolves.toBe('on the call');
    await sut.commit();
    await sut.commit();
    expect(manager.transaction).not.toHaveBeenCalled();
    expect(sent).toEqual([OPENING, 'commit']);
    expect(sut.inTransaction).toBe(false);
  });

  it('commitKeepingLocks: session locks, then COMMIT; later work gets transactions of its own; release drops the session locks', async () => {
    const { sut, sent, locks, runner } = harness();
    await sut.begin();
    await sut.commitKeepingLocks();
    await sut.commitKeepingLocks();
    await sut.run(async () => sent.push('phase'));
    await sut.release(false);
    expect(locks.holdForSession).toHaveBeenCalledTimes(1);
    expect(sent).toEqual([OPENING, 'session locks', 'commit', 'start transaction', 'phase', 'commit (TypeORM)', 'unlock all']);
    expect(runner.release).toHaveBeenCalledTimes(1);
  });

  it('release after success sends nothing and returns the connection', async () => {
    const { sut, sent, runner, pg } = harness();
    await sut.begin();
    await sut.commit();
    await sut.release(false);
    expect(sent).toEqual([OPENING, 'commit']);
    expect(pg.end).not.toHaveBeenCalled();
    expect(runner.release).toHaveBeenCalledTimes(1);
  });

  it('a session that cannot roll back is closed before it goes back to the pool (its locks go with it)', async () => {
    const { sut, runner, pg } = harness({ failing: (text) => (text === 'rollback' ? new Error('Connection terminated') : undefined) });
    await sut.begin();
    await sut.release(true);
    expect(pg.end).toHaveBeenCalledTimes(1);
    expect(runner.release).toHaveBeenCalledTimes(1);
  });
});
