import * as pg from 'pg';

/** One statement of a pipeline: its text, its values, and its prepared name when it has one. */
export interface PipelinedStatement {
  text: string;
  values?: readonly unknown[];
  /** A prepared statement's name: the pipeline only binds it, so it must be parsed on the connection already. */
  name?: string;
}

/** pg's result of one statement (rows, rowCount, command), as a plain `client.query` resolves it. */
export type StatementResult = pg.QueryResult;

/** The statement a pipeline's failure came from, set on the error PostgreSQL answered. */
export const FAILED_STATEMENT = Symbol('failedStatement');

/** The parts of pg's connection a pipeline writes to (pg-protocol's messages; not in pg's types). */
interface WireConnection {
  stream: { cork?: () => void; uncork?: () => void };
  parsedStatements: Record<string, string>;
  parse(message: { text: string; name?: string }): void;
  bind(message: { portal: string; statement?: string; values: readonly unknown[]; valueMapper: (value: unknown) => unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string }): void;
  sync(): void;
}

type ResultClass = new (
  rowMode?: string,
  types?: unknown,
) => StatementResult & {
  addFields(fields: unknown[]): void;
  addRow(row: unknown): void;
  parseRow(fields: unknown[]): unknown;
  addCommandComplete(message: unknown): void;
};
// pg's own Result and value mapper, which its Query uses (exported by pg, absent from its types).
const { Result, utils } = pg as unknown as { Result: ResultClass; utils: { prepareValue: (value: unknown) => unknown } };

/**
 * Several statements in one round trip, written as pg's `Submittable` (its documented interface for
 * custom queries): Bind, Describe and Execute for each statement, then one Sync. PostgreSQL runs
 * them in order; after a failure it skips the rest up to the Sync, so a statement never runs when
 * one before it failed, and the whole pipeline fails with the first error, marked with the
 * statement it came from (FAILED_STATEMENT).
 *
 * Written by hand because node-postgres's own pipeline mode (`pipeline: true`) sends a Sync after
 * every statement: measured here on the user update's shape (BEGIN with its locks, a locked read, a
 * write, COMMIT), pg's mode saved 0.15 of the database's and the service's CPU per transaction, and
 * one Sync for the statements of one step 0.35.
 *
 * A named statement is only bound here, never parsed: a name whose Parse failed part-way through a
 * pipeline would leave pg's record of the connection's prepared statements wrong. The caller
 * checks `canPipeline` first, and sends anything else the usual way.
 */
export class StatementPipeline {
  private readonly results: Array<InstanceType<ResultClass>>;
  private index = 0;
  private failure: (Error & { [FAILED_STATEMENT]?: PipelinedStatement }) | null = null;
  private unreadable: Error | null = null;
  /** pg's client sets the callback of a submittable it queues. */
  callback: ((error: Error | null, results?: StatementResult[]) => void) | undefined;

  constructor(
    readonly statements: readonly PipelinedStatement[],
    types?: unknown,
  ) {
    this.results = statements.map(() => new Result(undefined, types));
  }

  /** Whether `statement` can go in a pipeline on this connection (see the class comment). */
  static canPipeline(connection: WireConnection, statement: PipelinedStatement): boolean {
    return statement.name === undefined || connection.parsedStatements[statement.name] === statement.text;
  }

  submit(connection: WireConnection): Error | null {
    // Values are mapped before anything is written: a value pg cannot send fails the pipeline whole.
    let values: unknown[][];
    try {
      values = this.statements.map((statement) => (statement.values ?? []).map((value) => utils.prepareValue(value)));
    } catch (error) {
      return error as Error;
    }
    connection.stream.cork?.();
    try {
      this.statements.forEach((statement, i) => {
        if (statement.name === undefined) connection.parse({ text: statement.text });
        connection.bind({ portal: '', statement: statement.name, values: values[i] as unknown[], valueMapper: (value) => value });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '' });
      });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: unknown[] }): void {
    this.current()?.addFields(message.fields);
  }

  handleDataRow(message: { fields: unknown[] }): void {
    const result = this.current();
    if (!result || this.unreadable) return;
    try {
      result.addRow(result.parseRow(message.fields));
    } catch (error) {
      // As pg's Query does: a value its type parser refuses fails the query once the round trip ends.
      this.unreadable = error as Error;
    }
  }

  handleCommandComplete(message: unknown): void {
    this.current()?.addCommandComplete(message);
    this.index += 1;
  }

  handleEmptyQuery(): void {
    this.index += 1;
  }

  /** PostgreSQL's error (then its ReadyForQuery, which pg's client takes itself), or the connection's loss. */
  handleError(error: Error): void {
    if (this.failure) return;
    const statement = this.statements[this.index];
    if (statement) Object.defineProperty(error, FAILED_STATEMENT, { value: statement });
    this.failure = error;
    this.finish(error);
  }

  handleReadyForQuery(): void {
    if (this.failure) return;
    if (this.unreadable) this.handleError(this.unreadable);
    else this.finish(null, this.results);
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(): void {}

  handleCopyData(): void {}

  private current(): InstanceType<ResultClass> | undefined {
    return this.results[this.index];
  }

  private finish(error: Error | null, results?: StatementResult[]): void {
    const callback = this.callback;
    this.callback = undefined;
    callback?.(error, results);
  }
}
