import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { DomainError } from '../../common/errors/domain-error';

/** A 64-bit advisory lock key from a lock name (sha-256, first 8 bytes, signed). */
export function lockKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

/** Keys sorted numerically: every caller takes them in the same order, so none can deadlock. */
function orderedKeys(names: string[]): string[] {
  return [...new Set(names.map(lockKey))].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
}

const LOCK_NOT_AVAILABLE = '55P03';
const QUERY_CANCELED = '57014'; // statement_timeout
const DEADLOCK_DETECTED = '40P01';

function isLockWaitFailure(error: unknown): boolean {
  const code = (error as { code?: string; driverError?: { code?: string } }).driverError?.code ?? (error as { code?: string }).code;
  return code === LOCK_NOT_AVAILABLE || code === QUERY_CANCELED || code === DEADLOCK_DETECTED;
}

/**
 * Session advisory locks held on one dedicated connection for the length of a call. Work done
 * under them runs on that same connection (see TransactionRunner), never on a second pooled one.
 */
export class LockLease {
  private released = false;

  constructor(readonly runner: QueryRunner) {}

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      await this.runner.query('select pg_advisory_unlock_all()');
      await this.runner.release();
    } catch (error) {
      // The session is unusable: destroying the connection drops its locks with it.
      await (this.runner as QueryRunner & { release(err?: unknown): Promise<void> }).release(error).catch(() => undefined);
    }
  }
}

@Injectable()
export class LockService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /**
   * Takes session locks on every name (fixed order), waiting at most LOCK_WAIT_MS in total;
   * past that the call is answered 503/503/1 and nothing stays locked.
   */
  async acquire(names: string[]): Promise<LockLease> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    const lease = new LockLease(runner);
    // One round trip: the keys are integers we computed, so they are written into the text; the
    // statement timeout bounds the whole wait, and the target list is evaluated left to right.
    const locks = orderedKeys(names).map((key) => `pg_advisory_lock(${BigInt(key).toString()})`).join(', ');
    try {
      await runner.query(`set statement_timeout = ${Math.max(1, this.config.env.lockWaitMs)}; select ${locks}; set statement_timeout = 0`);
      return lease;
    } catch (error) {
      await runner.query('set statement_timeout = 0').catch(() => undefined);
      await lease.release();
      if (isLockWaitFailure(error)) throw new DomainError('LOCK_TIMEOUT', { headers: { 'retry-after': '1' } });
      throw error;
    }
  }

  /** Transaction-scoped locks (released at commit or rollback), in the same fixed order. */
  async xactLock(manager: EntityManager, names: string[]): Promise<void> {
    for (const key of orderedKeys(names)) {
      await manager.query('select pg_advisory_xact_lock($1::bigint)', [key]);
    }
  }
}
