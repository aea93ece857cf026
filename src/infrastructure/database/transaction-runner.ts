import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { CallConnection } from './call-connection';

/**
 * Runs a service's transactions where the caller says: on the call's connection when it passes
 * one (joining the call's open transaction, or one of its own there after the call committed
 * keeping its locks), else (jobs, care console reads) a pooled transaction.
 */
@Injectable()
export class TransactionRunner {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  run<T>(call: CallConnection | undefined, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return call ? call.run(work) : this.dataSource.transaction(work);
  }

  /** Reads without BEGIN/COMMIT round trips, on the call's connection when there is one. */
  read<T>(call: CallConnection | undefined, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return work(call?.manager ?? this.dataSource.manager);
  }
}
