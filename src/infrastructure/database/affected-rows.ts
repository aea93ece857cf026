/**
 * How many rows a data-modifying statement run through `EntityManager.query` changed. TypeORM's
 * Postgres query runner answers an UPDATE or DELETE (a statement whose last part is one, CTEs
 * before it included) with `[rows, affected]` and any other statement with its rows, so the length
 * of what `query` returns is not the count: read as one, it is 2 for every UPDATE.
 */
export function affectedRows(result: unknown): number {
  if (!Array.isArray(result)) return 0;
  return Array.isArray(result[0]) && typeof result[1] === 'number' ? result[1] : result.length;
}
