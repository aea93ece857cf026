import type { EntityManager, QueryRunner } from 'typeorm';
import { pgClientOf } from './data-source-options';
import type { LockService } from './lock.service';
import { dropAhead, sendAhead } from './prepared-statements';
import { FAILED_STATEMENT, PipelinedStatement } from './statement-pipeline';

export const CURRENT_CALL = 'call:connection';

/**
 * The one connection a locked call runs on, from its first statement to its last: its locks, its
 * transaction and every query of its use case (see TransactionRunner) share one session, so a call
 * never waits for a second pooled connection while holding locks.
 */
export class CallConnection {
  private sessionLocks = false;
  private names: readonly string[] | undefined;
  /** BEGIN and the lock statement, as sent ahead of the call's first statement. */
  private opening: readonly PipelinedStatement[] = [];

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

  /** pg's client under the query runner (connected by the CallRunner before the call starts). */
  private get client(): object {
    return pgClientOf(this.runner) as object;
  }

  get inTransaction(): boolean {
    return this.runner.isTransactionActive;
  }

  /**
   * Opens the call's transaction: BEGIN and the locks are sent with its first statement, in one
   * round trip (sendAhead), so a call whose first statement is its locked read costs one round trip
   * for the three. PostgreSQL runs them in order: the read runs only once the locks are held, and
   * not at all when they fail (failureOf gives that its answer). Until that first statement on this
   * connection nothing is locked: the call's work runs on it (TransactionRunner), never on another
   * pooled connection (the use cases' works, audited: their first statement is on the call's
   * connection). The transaction is opened with plain
   * SQL (TypeORM's startTransaction costs a round trip of its own) and flagged on the query runner, so
   * TypeORM and the outbox see it as the active transaction.
   */
  begin(): void {
    this.setActive(true);
    const lock = this.locks.lockStatement(this.lockList);
    this.opening = lock ? [{ text: 'begin' }, lock] : [{ text: 'begin' }];
    sendAhead(this.client, this.opening);
  }

  /** What a failed call answers: the locks' refusal (503/503/1) when it was their statement that failed, else the error itself. */
  failureOf(error: unknown): unknown {
    const failed = failedStatementOf(error);
    return failed !== undefined && this.opening.includes(failed) ? (this.locks.failureOf(error) ?? error) : error;
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
    // Nothing sent ahead outlives the call: an unsent BEGIN opened nothing to roll back.
    if (dropAhead(this.client).some((statement) => this.opening.includes(statement))) this.setActive(false);
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

function failedStatementOf(error: unknown): PipelinedStatement | undefined {
  // TypeORM wraps pg's error (QueryFailedError) and keeps it as driverError.
  const driverError = (error as { driverError?: unknown } | null)?.driverError ?? error;
  return (driverError as { [FAILED_STATEMENT]?: PipelinedStatement } | null)?.[FAILED_STATEMENT];
}
