import type { ClientBase } from 'pg';
import type { EntityManager } from 'typeorm';
import { statementConfig } from './prepared-statements';

/**
 * The rows of one statement, run as pg's query config (named when marked `prepared()`): on the
 * connection of `manager`'s query runner when it has one (a call's, a transaction's), else on a
 * pooled connection taken for this one statement (a lone read: a replay's stored answer, GET
 * account). The pg client is the one TypeORM's `QueryRunner.connect()` documents as its result.
 */
export async function queryRows<T>(manager: EntityManager, text: string, values: readonly unknown[]): Promise<T[]> {
  const runner = manager.queryRunner ?? manager.dataSource.createQueryRunner();
  try {
    const client = (await runner.connect()) as ClientBase;
    return (await client.query(statementConfig(text, values))).rows as T[];
  } finally {
    if (runner !== manager.queryRunner) await runner.release();
  }
}
