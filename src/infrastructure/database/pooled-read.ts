import type { DataSource, EntityManager } from 'typeorm';
import { pgPoolOf } from './data-source-options';

/**
 * One statement outside any transaction (a request's lone read: a replay's stored answer, GET
 * account, GET users), on a pooled pg client directly. TypeORM's DataSource.query costs ~5 µs more
 * CPU a statement for nothing such a read needs (a query runner, its own connect and release, its
 * result wrapping: ~24 µs against ~29 µs of CPU in a bench of the same prepared statement), 2% of a
 * replay. The client's query is the wrapped one, so a statement marked `prepared()` runs prepared.
 * A client whose statement failed is not put back (a failed lone read means a lost connection).
 */
async function readRows<T>(dataSource: DataSource, text: string, values: readonly unknown[]): Promise<T[]> {
  const client = await pgPoolOf(dataSource).connect();
  let failed: Error | undefined;
  try {
    return (await client.query(text, values as unknown[])).rows as T[];
  } catch (error) {
    failed = error as Error;
    throw error;
  } finally {
    client.release(failed);
  }
}

/** The rows of one statement: in the caller's transaction when given its `manager`, else a lone read (`readRows`). */
export async function queryRows<T>(dataSource: DataSource, manager: EntityManager | undefined, text: string, values: readonly unknown[]): Promise<T[]> {
  return manager ? ((await manager.query(text, values as unknown[])) as T[]) : readRows<T>(dataSource, text, values);
}
