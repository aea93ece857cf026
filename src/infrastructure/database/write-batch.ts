import type { EntityManager } from 'typeorm';
import { queryRows } from './pooled-read';
import { prepared } from './prepared-statements';

export type Statement = { sql: string; params: unknown[] };

/**
 * Several writes of one transaction sent as one statement: each becomes a data-modifying CTE of a
 * single query, so a new enrollment's rows (account, purse, user, addresses, phones, limit keys,
 * card, outbox rows) cost one round trip instead of one each. Foreign keys are checked at the end
 * of the statement, so a row may reference one inserted by an earlier part. The parts see the
 * same snapshot: a part must not read what another part writes.
 */
export class WriteBatch {
  private readonly statements: Statement[] = [];

  /** A multi-row insert; every row gives a value for every column, in order. */
  insert(table: string, columns: readonly string[], rows: ReadonlyArray<readonly unknown[]>): this {
    if (rows.length === 0) return this;
    const params: unknown[] = [];
    const values = rows.map((row) => {
      if (row.length !== columns.length) throw new Error(`${table}: ${row.length} values for ${columns.length} columns`);
      return `(${row.map((value) => `$${params.push(value)}`).join(', ')})`;
    });
    this.statements.push({ sql: `insert into ${table} (${columns.join(', ')}) values ${values.join(', ')}`, params });
    return this;
  }

  /** Any other write, with its own `$1…$n` parameters (renumbered when the batch is sent). */
  write(sql: string, params: unknown[] = []): this {
    this.statements.push({ sql, params });
    return this;
  }

  get size(): number {
    return this.statements.length;
  }

  /** Forgets the writes added so far (they were sent). */
  clear(): void {
    this.statements.length = 0;
  }

  async execute(manager: EntityManager): Promise<void> {
    if (this.statements.length > 0) {
      const { sql, params } = this.compose();
      await queryRows(manager, sql, params);
    }
  }

  /**
   * The batch as one statement: each write but the last a CTE `wN`, parameters renumbered in order.
   * Marked prepared: a batch is inserts and updates by key, whose generic plan is the custom one.
   */
  compose(): Statement {
    if (this.statements.length === 1) {
      const [only] = this.statements as [Statement];
      return { sql: prepared(only.sql), params: only.params };
    }
    const params: unknown[] = [];
    const parts = this.statements.map(({ sql, params: own }) => {
      const offset = params.length;
      params.push(...own);
      return sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    });
    const last = parts.pop() as string;
    return { sql: prepared(`with ${parts.map((part, i) => `w${i} as (${part})`).join(', ')} ${last}`), params };
  }
}
