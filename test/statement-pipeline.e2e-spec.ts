import { Client } from 'pg';
import { dropAhead, prepared, sendAhead, wrapClientQuery } from '../src/infrastructure/database/prepared-statements';
import { FAILED_STATEMENT, StatementPipeline } from '../src/infrastructure/database/statement-pipeline';
import { uniqueSchema } from './support/test-app';

/**
 * Statements sent ahead of a query (a call's BEGIN and locks, its last write before COMMIT), on a
 * real PostgreSQL session: they share the query's round trip, run in order, and after a failure
 * nothing more of that round trip runs. The HTTP behaviour they carry (lock waits, user updates,
 * enrollments) is in the locking, user-profile and enrollment specs.
 */
describe('statements sent ahead (e2e, PostgreSQL)', () => {
  const schema = uniqueSchema('pipeline');
  let client: Client;
  /** What the wrapped query handed to pg: a pipeline or a single statement, per round trip. */
  const sent: string[] = [];

  beforeAll(async () => {
    client = new Client({ connectionString: process.env.DATABASE_URL, options: `-c search_path=${schema}` });
    await client.connect();
    await client.query(`create schema ${schema}`);
    await client.query('create table items (id int primary key, note text)');
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      sent.push(args[0] instanceof StatementPipeline ? `pipeline of ${args[0].statements.length}` : 'single');
      return query(...args);
    };
    wrapClientQuery(client as never, true);
  });

  afterAll(async () => {
    await client.query(`drop schema ${schema} cascade`);
    await client.end();
  });

  beforeEach(async () => {
    await client.query('truncate items');
    sent.length = 0;
  });

  const insert = prepared('insert into items (id, note) values ($1, $2) /* pipeline spec */');
  const count = async () => Number(((await client.query('select count(*)::int as n from items')) as { rows: Array<{ n: number }> }).rows[0]?.n);

  it('go with the next query in one round trip, in order, and the query answers with its own result', async () => {
    await client.query(insert, [0, 'parses the named insert on this session']);
    sent.length = 0;
    sendAhead(client, [{ text: 'begin' }, { text: insert, values: [1, 'a'] }]);
    const result = (await client.query('select note from items where id = $1', [1])) as { rows: Array<{ note: string }> };
    await client.query('commit');
    expect(result.rows).toEqual([{ note: 'a' }]);
    expect(sent).toEqual(['pipeline of 3', 'single']);
    expect(await count()).toBe(2);
  });

  it('a failure ahead fails the query, marked with its statement, and nothing after it runs', async () => {
    await client.query(insert, [1, 'first']);
    const failing = { text: insert, values: [1, 'the same key again'] };
    sendAhead(client, [{ text: 'begin' }, failing]);
    const error = (await client.query(insert, [2, 'never written']).catch((e: unknown) => e)) as Error & { code?: string; [FAILED_STATEMENT]?: unknown };
    expect(error.code).toBe('23505');
    expect(error[FAILED_STATEMENT]).toBe(failing);
    await client.query('rollback');
    expect(await count()).toBe(1);
    // The session's prepared statements are as pg believes them to be: the insert runs again, named.
    await client.query(insert, [3, 'after the failure']);
    expect(await count()).toBe(2);
  });

  it('a failure of the query itself is not marked as one of the statements ahead, which ran', async () => {
    sendAhead(client, [{ text: 'begin' }, { text: insert, values: [5, 'ahead'] }]);
    const error = (await client.query('select 1 / 0').catch((e: unknown) => e)) as Error & { code?: string; [FAILED_STATEMENT]?: { text: string } };
    expect(error.code).toBe('22012');
    expect(error[FAILED_STATEMENT]?.text).toBe('select 1 / 0');
    await client.query('rollback');
    expect(await count()).toBe(0);
  });

  it('a named statement this session has not parsed yet runs in turn, then shares the round trip the next time', async () => {
    const fresh = prepared('insert into items (id, note) values ($1, $2) /* pipeline spec, fresh */');
    sendAhead(client, [{ text: fresh, values: [7, 'x'] }]);
    await client.query('select 1');
    sendAhead(client, [{ text: fresh, values: [8, 'y'] }]);
    await client.query('select 1');
    expect(sent).toEqual(['single', 'single', 'pipeline of 2']);
    expect(await count()).toBe(2);
  });

  it('statements taken back are never sent', async () => {
    const opening = [{ text: 'begin' }, { text: insert, values: [9, 'taken back'] }];
    sendAhead(client, opening);
    expect(dropAhead(client)).toEqual(opening);
    await client.query('select 1');
    expect(sent).toEqual(['single']);
    expect(await count()).toBe(0);
  });
});
