import { ClientBase, Pool } from 'pg';
import type { EntityManager } from 'typeorm';
import { statementConfig } from './prepared-statements';

/**
 * The rows of one statement, run as pg's query config (named when marked `prepared()`): on the
 * connection of `manager`'s query runner when it has one (a call's, a transaction's), else on a
 * pooled connection taken for this one statement. The pg client is the one TypeORM's
 * `QueryRunner.connect()` documents as its result.
 *
 * Given the app's pg pool (`DatabasePools.pool()`) instead of a manager, a lone read (a replay's
 * stored answer, GET account) runs through pg's documented `pool.query` (a pooled connection for
 * this one statement), without building a TypeORM query runner and entity manager around it
 * (docs/design-notes.md, "Lone reads").
 */
export async function queryRows<T>(on: EntityManager | Pool, text: string, values: readonly unknown[]): Promise<T[]> {
  if (on instanceof Pool) return (await on.query(statementConfig(text, values))).rows as T[];
  const manager = on;
  const runner = manager.queryRunner ?? manager.dataSource.createQueryRunner();
  try {
    const client = (await runner.connect()) as ClientBase;
    return (await client.query(statementConfig(text, values))).rows as T[];
  } finally {
    if (runner !== manager.queryRunner) await runner.release();
  }
}
