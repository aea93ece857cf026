import * as pg from 'pg';

/**
 * The one file that relies on pg beyond its documented API (STYLE rule 12's isolated exception;
 * docs/design-notes.md, "A call's opening with its first statement, under one Sync"). What it reads:
 * - `client.connection.parsedStatements`: pg's record of the named statements parsed on a session
 *   (pg's own Query reads and writes it; here it is only read);
 * - `pg.utils.prepareValue`: pg's value mapper (exported at run time, absent from @types/pg), so a
 *   value goes out as pg's Query would send it;
 * - pg's Query answering a multi-statement round trip with one result per statement (as it does
 *   for a simple query with several statements).
 * `test/statement-group.e2e-spec.ts` is its contract test, on a real session in pg's pipeline
 * mode: it fails on the pg upgrade that changes any of them. If one is missing at run time,
 * `StatementGroup.send` answers null and the caller sends the statements one by one, as before.
 */
interface SessionRecord {
  parsedStatements?: Record<string, string>;
}
type PrepareValue = (value: unknown) => unknown;
// eslint-disable-next-line no-restricted-syntax -- this file's exception (above)
const prepareValue: PrepareValue | undefined = (pg as unknown as { utils?: { prepareValue?: PrepareValue } }).utils?.prepareValue;

/**
 * Several statements in one round trip under one Sync: Parse (unnamed statements only), Bind,
 * Describe and Execute for each, then one Sync. PostgreSQL runs them in order and, after a failure,
 * skips the rest up to the Sync, so a statement never runs when one before it failed; the group
 * fails with that first error. Answers one pg result per statement, in order.
 *
 * Why: pg's pipeline mode sends a Sync after every statement, and the session then answers a call's
 * opening apart from its first statement; answered together, the user update ran measurably faster
 * (what was measured, and what was not worth it: docs/design-notes.md, section 2).
 *
 * A subclass of pg's Query: pg's pipeline mode accepts only its own Query objects (a custom
 * submittable could keep a portal open across round trips), and its handlers already collect one
 * result per statement. A named statement is only bound here, never parsed: pg records a name as
 * parsed only for its own Query, so a name not yet parsed on the session makes `send` answer null.
 */
export class StatementGroup extends pg.Query {
  private constructor(
    /** Read by the bench's SQL probe (bench/sql-probe.ts) and the e2e statement count. */
    readonly statements: readonly pg.QueryConfig[],
    private readonly mapped: unknown[][],
    done: (error: Error | null, results?: pg.QueryResult[]) => void,
  ) {
    // pg's Query answers a round trip of several statements with one result per statement (an array
    // from the second), where @types/pg types one: the callback takes what it is given as unknown.
    super(statements.map((statement) => statement.text).join(';\n'), (error: Error | undefined, results: unknown) =>
      error ? done(error) : done(null, Array.isArray(results) ? (results as pg.QueryResult[]) : [results as pg.QueryResult]),
    );
  }

  /**
   * Sends `statements` on `client` as one group; null (nothing sent) when a named statement is not
   * parsed on this session yet, or this pg lacks what the group reads (see the file's comment).
   */
  static send(client: pg.ClientBase, statements: readonly pg.QueryConfig[]): Promise<pg.QueryResult[]> | null {
    // eslint-disable-next-line no-restricted-syntax -- this file's exception (above)
    const parsed = (client as { connection?: SessionRecord }).connection?.parsedStatements;
    if (!prepareValue || !parsed || !statements.every((statement) => statement.name === undefined || parsed[statement.name] === statement.text)) {
      return null;
    }
    let values: unknown[][];
    try {
      values = statements.map((statement) => ((statement.values ?? []) as unknown[]).map((value) => prepareValue(value)));
    } catch {
      // A value pg cannot send: let pg's own Query refuse it, statement by statement.
      return null;
    }
    return new Promise((resolve, reject) => {
      client.query(new StatementGroup(statements, values, (error, results) => (error ? reject(error) : resolve(results ?? []))));
    });
  }

  override submit = (connection: pg.Connection): void => {
    connection.stream.cork();
    try {
      this.statements.forEach((statement, i) => {
        if (statement.name === undefined) connection.parse({ text: statement.text, name: '', types: [] }, false);
        connection.bind({ portal: '', statement: statement.name ?? '', values: this.mapped[i] as string[] }, false);
        connection.describe({ type: 'P', name: '' }, false);
        connection.execute({ portal: '' }, false);
      });
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
  };
}
