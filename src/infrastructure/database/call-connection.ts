import type { Client, QueryConfig } from 'pg';
import type { EntityManager, QueryRunner } from 'typeorm';
import type { LockService } from './lock.service';
import { statementConfig } from './prepared-statements';
import { StatementGroup } from './statement-group';
import { WriteBatch } from './write-batch';

/**
 * The one connection a locked call runs on, from its first statement to its last: its locks, its
 * transaction and every statement of its use case share one session, so a call never waits for a
 * second pooled connection while holding locks. The CallRunner opens it and hands it to the use
 * case, which hands it (or its `manager`) to every collaborator that reads or writes under the locks.
 *
 * BEGIN and the locks (the opening) wait for the call's first statement: the first `rows` of the
 * call goes with them in one round trip under one Sync (StatementGroup); anything else that reaches
 * the session first (the `manager`, `run`, `opened`, `commit`) sends the opening before it, so no
 * statement of the call can run outside its transaction or before its locks. With pg's pipeline
 * mode (the app pool's) a statement is sent without waiting for the answers before it, so the last
 * writes and COMMIT share a round trip too. PostgreSQL runs them in order and, once a statement of
 * the transaction failed, none after it.
 *
 * The call's transaction is opened with plain SQL, so TypeORM's query runner does not count it as
 * one of its own: under a call, nothing opens a transaction through TypeORM (`manager.transaction`,
 * `save`, the `lock` find option) while `inTransaction`; work that needs one goes through `run`.
 */
export class CallConnection {
  /** Writes sent with the call's COMMIT, in one statement (WriteBatch). */
  readonly batch = new WriteBatch();
  private transaction = false;
  private sessionLocks = false;
  private names: readonly string[] | undefined;
  /** BEGIN and the locks, not sent yet (begin() was called, no statement of the call was). */
  private pendingOpening: QueryConfig[] | undefined;
  private opening: Promise<void> | undefined;
  private openingFailure: unknown;

  /**
   * `client` is the pg client of `runner` (its `connect()`); `lockNames` may be computed on first
   * use: a replay answered before BEGIN never needs them (they cost HMACs).
   */
  constructor(
    private readonly runner: QueryRunner,
    private readonly client: Client,
    private readonly locks: LockService,
    private readonly lockNames: readonly string[] | (() => readonly string[]),
  ) {}

  private get lockList(): readonly string[] {
    return (this.names ??= typeof this.lockNames === 'function' ? this.lockNames() : this.lockNames);
  }

  /** The session's entity manager; once the call has begun, handing it out sends the opening first. */
  get manager(): EntityManager {
    this.sendOpening();
    return this.runner.manager;
  }

  /** Whether the call's own transaction (the one `begin` opened) is open. */
  get inTransaction(): boolean {
    return this.transaction;
  }

  /**
   * Opens the call: BEGIN and the call's locks (one prepared statement, waiting at most
   * LOCK_WAIT_MS), sent with the call's first statement (see the class comment). Every statement
   * of the call runs only once the locks are held, and fails when they are not. `opened()` and
   * `failureOf` give their outcome.
   */
  begin(): void {
    this.transaction = true;
    const lock = this.locks.lockStatement(this.lockList);
    this.pendingOpening = [{ text: 'begin' }, ...(lock ? [statementConfig(lock.text, lock.values)] : [])];
  }

  /**
   * The rows of one statement on the call's session (named when marked `prepared()`). The call's
   * first statement goes with BEGIN and the locks in one round trip under one Sync; its failure is
   * then the opening's too (a lock that waited too long answers 503/503/1 either way).
   */
  async rows<T>(text: string, values: readonly unknown[]): Promise<T[]> {
    const statement = statementConfig(text, values);
    const opening = this.pendingOpening;
    const grouped = opening ? StatementGroup.send(this.client, [...opening, statement]) : null;
    if (!grouped) {
      this.sendOpening();
      return (await this.client.query(statement)).rows as T[];
    }
    this.pendingOpening = undefined;
    this.track(grouped);
    const results = await grouped;
    return results[results.length - 1].rows as T[];
  }

  /** Sends BEGIN and the locks now when they still wait for a first statement, without waiting for their answer. */
  private sendOpening(): void {
    const opening = this.pendingOpening;
    if (!opening) return;
    this.pendingOpening = undefined;
    this.track(Promise.all(opening.map((statement) => this.client.query(statement))));
  }

  /** The opening's outcome, kept for opened() and failureOf(). */
  private track(sent: Promise<unknown>): void {
    this.opening = sent.then(
      () => undefined,
      (error: unknown) => {
        this.openingFailure = this.locks.failureOf(error) ?? error;
        throw this.openingFailure;
      },
    );
    // Answered through opened() or failureOf(); a call that ends first must not leave it unheard.
    this.opening.catch(() => undefined);
  }

  /** Resolves once BEGIN and the locks succeeded; rejects with their failure (503/503/1 for a lock wait). */
  async opened(): Promise<void> {
    this.sendOpening();
    await this.opening;
  }

  /**
   * What a failed call answers: the opening's failure when BEGIN or the locks failed (the
   * statements after them then fail only because the transaction was aborted), else `error`.
   */
  async failureOf(error: unknown): Promise<unknown> {
    await this.opening?.catch(() => undefined);
    return this.openingFailure ?? error;
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

  /**
   * Sends the call's batched writes and COMMIT together (after a phased commit, the writes alone,
   * one statement). A failed write fails the call: PostgreSQL then answers the COMMIT by rolling back.
   */
  async commit(): Promise<void> {
    this.sendOpening();
    const writes = this.batch.size > 0 ? this.batch.compose() : null;
    this.batch.clear();
    const sent = [
      ...(writes ? [this.client.query(statementConfig(writes.sql, writes.params))] : []),
      ...(this.transaction ? [this.client.query('commit')] : []),
    ];
    const settled = await Promise.allSettled(sent);
    if (this.transaction && settled[settled.length - 1]?.status === 'fulfilled') this.transaction = false;
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Rolls back what is open, drops session locks, and returns the connection to the pool. A
   * session that cannot do that is closed (pg's `end`), so its locks go with it, and the pool
   * drops it when it comes back.
   */
  async release(failed: boolean): Promise<void> {
    // Begun, and nothing sent: there is nothing to roll back.
    if (this.pendingOpening) {
      this.pendingOpening = undefined;
      this.transaction = false;
    }
    try {
      if (failed && this.transaction) {
        this.transaction = false;
        await this.client.query('rollback');
      }
      if (this.sessionLocks) await this.locks.releaseSession(this.manager);
    } catch {
      await this.client.end().catch(() => undefined);
    } finally {
      await this.runner.release();
    }
  }
}
