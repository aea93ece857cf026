import { hash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { DomainError } from '../../common/errors/domain-error';
import { DB_LOCK_TIMEOUT_DEFAULT } from './data-source-options';
import { queryRows } from './pooled-read';
import { prepared } from './prepared-statements';

/** A 64-bit advisory lock key from a lock name (sha-256, first 8 bytes, signed). */
export function lockKey(name: string): string {
  return hash('sha256', name, 'buffer').readBigInt64BE(0).toString();
}

const SHARED = 'shared:';

/** Keys sorted numerically (every caller takes them in the same order, so none can deadlock), each marked shared or not. */
function orderedKeys(names: readonly string[]): Array<{ key: string; shared: boolean }> {
  const byKey = new Map<string, boolean>();
  for (const name of names) {
    const shared = name.startsWith(SHARED);
    const key = lockKey(shared ? name.slice(SHARED.length) : name);
    // The same lock asked for both ways is taken exclusive.
    byKey.set(key, (byKey.get(key) ?? true) && shared);
  }
  return [...byKey.entries()]
    .map(([key, shared]) => ({ key, shared, order: BigInt(key) }))
    .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
}

/**
 * Names of the locks of SERVICE.md's "API locking" table, scoped by partner and program where the
 * value is the partner's; an SSN only ever appears as its blind index.
 */
export const LockNames = {
  requestId: (partnerId: string, programCode: string, requestId: string) => `requestId:${partnerId}:${programCode}:${requestId}`,
  ssn: (programCode: string, ssnBidx: string) => `ssn:${programCode}:${ssnBidx}`,
  account: (accountId: string) => `account:${accountId}`,
  user: (userId: string) => `user:${userId}`,
  limitKey: (programCode: string, kind: string, bidx: string) => `limit:${programCode}:${kind}:${bidx}`,
  /** A partner's data in a program: enrollments hold it shared, the sandbox reset exclusive. */
  partnerData: (partnerId: string, programCode: string) => `data:${partnerId}:${programCode}`,
  /** The shared form of a lock: any number of holders at once, none while someone holds it exclusive. */
  shared: (name: string) => `${SHARED}${name}`,
};

const LOCK_NOT_AVAILABLE = '55P03'; // lock_timeout
const QUERY_CANCELED = '57014'; // statement_timeout (or a cancel)
const DEADLOCK_DETECTED = '40P01';

function isLockWaitFailure(error: unknown): boolean {
  const code = (error as { code?: string; driverError?: { code?: string } }).driverError?.code ?? (error as { code?: string }).code;
  return code === LOCK_NOT_AVAILABLE || code === QUERY_CANCELED || code === DEADLOCK_DETECTED;
}

/**
 * The advisory-lock calls for `names` in one target list (evaluated left to right, so in key
 * order), their keys as parameters: the text depends only on how many locks there are and which
 * are shared.
 */
function lockCalls(fn: string, names: readonly string[]): { text: string; values: string[] } {
  const keys = orderedKeys(names);
  return {
    text: keys.map(({ shared }, i) => `${shared ? `${fn}_shared` : fn}($${i + 1}::bigint)`).join(', '),
    values: keys.map(({ key }) => key),
  };
}

/** PostgreSQL advisory locks: they hold across every app instance sharing the database. */
@Injectable()
export class LockService {
  constructor(private readonly config: AppConfig) {}

  /**
   * Transaction-scoped locks on every name, taken in one round trip inside the caller's open
   * transaction; the wait is capped at LOCK_WAIT_MS, past which the call is answered 503/503/1.
   * (A call's own locks open its transaction: CallConnection.begin.)
   */
  async lockInTransaction(manager: EntityManager, names: readonly string[]): Promise<void> {
    const lock = this.lockStatement(names);
    if (!lock) return;
    try {
      await queryRows(manager, lock.text, lock.values);
    } catch (error) {
      throw this.failureOf(error) ?? error;
    }
  }

  /**
   * The one statement that takes every lock of `names` in the open transaction, waiting at most
   * LOCK_WAIT_MS; null for no names. Its keys are parameters and its text depends only on how
   * many locks there are and which are shared, so it is a prepared statement.
   */
  lockStatement(names: readonly string[]): { text: string; values: string[] } | null {
    if (names.length === 0) return null;
    const calls = lockCalls('pg_advisory_xact_lock', names);
    return { text: prepared(`select ${this.capped(calls.text)}`), values: calls.values };
  }

  /**
   * The lock calls between two `set_config`s of `lock_timeout`: the target list runs left to right,
   * so the first is in force while the locks wait and the last puts back the pool's own value
   * (DB_LOCK_TIMEOUT_DEFAULT). One statement instead of a `set local` before and after.
   */
  private capped(calls: string): string {
    const wait = Math.max(1, Math.trunc(this.config.env.lockWaitMs));
    return `set_config('lock_timeout', '${wait}', true), ${calls}, set_config('lock_timeout', '${DB_LOCK_TIMEOUT_DEFAULT}', true)`;
  }

  /** The answer to a lock statement's failure: 503/503/1 when it waited past its cap (or deadlocked); null for any other. */
  failureOf(error: unknown): DomainError | null {
    return isLockWaitFailure(error) ? new DomainError('LOCK_TIMEOUT', { headers: { 'retry-after': '1' } }) : null;
  }

  /**
   * The same locks at session level, for work that commits more than once under them; the caller
   * already holds them in its transaction, so this never waits. Released by `releaseSession`.
   */
  async holdForSession(manager: EntityManager, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    const calls = lockCalls('pg_advisory_lock', names);
    await manager.query(`select ${calls.text}`, calls.values);
  }

  /**
   * Whether some session holds the lock `name` right now, and since when: the start of the holder's
   * transaction (a call's locks are its first statement), or null when none holds it. Read from
   * pg_locks and pg_stat_activity, never taken (a status read must not queue behind or in front of
   * the call it describes), so it is the same on every instance; a holder whose activity this role
   * may not see is reported as beginning now.
   */
  async heldSince(manager: EntityManager, name: string): Promise<Date | null> {
    const key = BigInt.asUintN(64, BigInt(lockKey(name)));
    const rows = (await manager.query(
      `select coalesce(a.xact_start, now()) as "since" from pg_locks l left join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.database = (select oid from pg_database where datname = current_database())
          and l.classid = $1::bigint::oid and l.objid = $2::bigint::oid and l.objsubid = 1 and l.granted limit 1`,
      [(key >> 32n).toString(), (key & 0xffffffffn).toString()],
    )) as Array<{ since: Date }>;
    return rows[0]?.since ?? null;
  }

  async releaseSession(manager: EntityManager): Promise<void> {
    await manager.query('select pg_advisory_unlock_all()');
  }
}
