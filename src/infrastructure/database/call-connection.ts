import type { Client } from 'pg';
import type { EntityManager, QueryRunner } from 'typeorm';
import type { LockService } from './lock.service';

/**
 * The one connection a locked call runs on, from its first statement to its last: its locks, its
 * transaction and every statement of its use case share one session, so a call never waits for a
 * second pooled connection while holding locks. The CallRunner opens it and hands it to the use
 * case, which hands it (or its `manager`) to every collaborator that reads or writes under the locks.
 *
 * The call's transaction is opened with plain SQL (`begin` and the locks in one statement), so
 * TypeORM's query runner does not count it as a transaction of its own: nothing under a call
 * opens one through TypeORM (`manager.transaction`, `save`) while `inTransaction`; work that needs
 * a transaction goes through `run`, which joins the call's open one.
 */
export class CallConnection {
  private transaction = false;
  private sessionLocks = false;
  private names: readonly string[] | undefined;

  /** `lockNames` may be computed on first use: a replay answered before BEGIN never needs them (they cost HMACs). */
  constructor(
    private readonly runner: QueryRunner,
    private readonly locks: LockService,
    private readonly lockNames: readonly string[] | (() => readonly string[]),
  ) {}

  private get lockList(): readonly string[] {
    return (this.names ??= typeof this.lockNames === 'function' ? this.lockNames() : this.lockNames);
  }

  get manager(): EntityManager {
    return this.runner.manager;
  }

  /** Whether the call's own transaction (the one `begin` opened) is open. */
  get inTransaction(): boolean {
    return this.transaction;
  }

  /**
   * Opens the call's transaction with its locks, in one round trip (LockService.opening); a lock
   * that waited past LOCK_WAIT_MS (or deadlocked) is answered 503/503/1 and nothing else ran.
   */
  async begin(): Promise<void> {
    this.transaction = true;
    try {
      await this.runner.query(this.locks.opening(this.lockList));
    } catch (error) {
      throw this.locks.failureOf(error) ?? error;
    }
  }

  /**
   * Runs `work` in a transaction on the call's connection: the call's open one (so the call
   * commits once), or, after `commitKeepingLocks`, a transaction of its own (TypeORM's).
   */
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.transaction ? work(this.manager) : this.manager.transaction(work);
  }

  /**
   * For work that needs several commits under the call's locks (an enrollment resumed, or one
   * interrupted by a sandbox fault): the locks become session locks and the open transaction
   * commits. Later `run` calls each commit on this connection.
   */
  async commitKeepingLocks(): Promise<void> {
    if (!this.transaction) return;
    if (!this.sessionLocks) {
      await this.locks.holdForSession(this.manager, this.lockList);
      this.sessionLocks = true;
    }
    await this.commit();
  }

  async commit(): Promise<void> {
    if (!this.transaction) return;
    await this.runner.query('commit');
    this.transaction = false;
  }

  /**
   * Rolls back what is open, drops session locks, and returns the connection to the pool. A
   * session that cannot do that is closed (pg's `end`), so its locks go with it, and the pool
   * drops it when it comes back.
   */
  async release(failed: boolean): Promise<void> {
    try {
      if (failed && this.transaction) {
        this.transaction = false;
        await this.runner.query('rollback');
      }
      if (this.sessionLocks) await this.locks.releaseSession(this.manager);
    } catch {
      const client = (await this.runner.connect()) as Client;
      await client.end().catch(() => undefined);
    } finally {
      await this.runner.release();
    }
  }
}
