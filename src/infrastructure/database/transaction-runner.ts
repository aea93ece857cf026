import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ClsService } from 'nestjs-cls';
import { DataSource, EntityManager } from 'typeorm';
import { CallConnection, CURRENT_CALL } from './call-connection';

/**
 * Runs a use case's transactions. Inside a locked call (CallRunner) they run on the call's
 * connection: work joins the call's open transaction (so the call commits once), or, after the
 * call committed while keeping its locks, gets a transaction of its own on that connection.
 * Outside a call (jobs), a pooled transaction.
 */
@Injectable()
export class TransactionRunner {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cls: ClsService,
  ) {}

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const call = this.call();
    if (call?.inTransaction) return work(call.manager);
    if (call) return call.manager.transaction(work);
    return this.dataSource.transaction(work);
  }

  /** Reads without BEGIN/COMMIT round trips, on the call's connection when there is one. */
  read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return work(this.call()?.manager ?? this.dataSource.manager);
  }

  private call(): CallConnection | undefined {
    return this.cls.isActive() ? (this.cls.get(CURRENT_CALL) as CallConnection | undefined) : undefined;
  }
}
