import type { EntityManager, QueryRunner } from 'typeorm';
import type { LockService } from './lock.service';

export const CURRENT_CALL = 'call:connection';

/**
 * The one connection a locked call runs on, from its first statement to its last: its locks, its
 * transaction and every query of its use case (see TransactionRunner) share one session, so a call
 * never waits for a second pooled connection while holding locks.
 */
export class CallConnection {
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

  get inTransaction(): boolean {
    return this.runner.isTransactionActive;
  }

  /**
   * BEGIN and the locks in one round trip. The call's own transaction is opened with plain SQL
   * (TypeORM's startTransaction costs a round trip of its own) and flagged on the query runner, so
   * TypeORM and the outbox see it as the active transaction.
   */
  async begin(): Promise<void> {
    this.setActive(true);
    try {
      await this.locks.lockInTransaction(this.runner.manager, this.lockList, 'begin');
    } catch (error) {
      await this.rollback().catch(() => undefined);
      throw error;
    }
  }

  /**
   * For work that needs several commits under the call's locks (an enrollment resumed, or one
   * interrupted by a sandbox fault): the locks become session locks and the open transaction
   * commits. Later TransactionRunner.run calls each commit on this connection.
   */
  async commitKeepingLocks(): Promise<void> {
    if (!this.inTransaction) return;
    if (!this.sessionLocks) {
      await this.locks.holdForSession(this.runner.manager, this.lockList);
      this.sessionLocks = true;
    }
    await this.commit();
  }

  async commit(): Promise<void> {
    if (!this.inTransaction) return;
    await this.runner.query('commit');
    this.setActive(false);
  }

  private async rollback(): Promise<void> {
    this.setActive(false);
    await this.runner.query('rollback');
  }

  private setActive(active: boolean): void {
    (this.runner as { isTransactionActive: boolean }).isTransactionActive = active;
  }

  /** Rolls back what is open, drops session locks, and returns the connection (destroyed if unusable). */
  async release(failed: boolean): Promise<void> {
    try {
      if (failed && this.inTransaction) await this.rollback();
      if (this.sessionLocks) await this.locks.releaseSession(this.runner.manager);
      await this.runner.release();
    } catch (error) {
      // The session is unusable: destroying the connection drops its locks with it.
      await (this.runner as QueryRunner & { release(err?: unknown): Promise<void> }).release(error).catch(() => undefined);
    }
  }
}
