import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ClsService } from 'nestjs-cls';
import { DataSource, EntityManager } from 'typeorm';
import type { LockLease } from './lock.service';

export const LOCK_LEASE = 'locking:lease';

/**
 * Runs a transaction on the connection that holds the current call's locks (so the work and
 * its locks share one session), or on the pool when the call holds none.
 */
@Injectable()
export class TransactionRunner {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cls: ClsService,
  ) {}

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const lease = this.lease();
    if (lease) return lease.runner.manager.transaction(work);
    return this.dataSource.transaction(work);
  }

  /** Reads outside a transaction (no BEGIN/COMMIT round trips), on the same connection as `run`. */
  read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return work(this.lease()?.runner.manager ?? this.dataSource.manager);
  }

  private lease(): LockLease | undefined {
    return this.cls.isActive() ? (this.cls.get(LOCK_LEASE) as LockLease | undefined) : undefined;
  }
}
