import { Client, DatabaseError } from 'pg';
import { StatementGroup } from '../src/infrastructure/database/statement-group';

/**
 * The contract of the one file that relies on pg beyond its documented API
 * (`src/infrastructure/database/statement-group.ts`), on a real session in pg's pipeline mode as
 * the app pool runs it: a pg upgrade that changes what the group reads fails here.
 */
describe('StatementGroup: several statements under one Sync, on pg (e2e, PostgreSQL)', () => {
  let client: Client;
  const named = { name: 'statement_group_contract', text: 'select $1::int + 1 as n' };

  beforeAll(async () => {
    client = new Client({ connectionString: process.env.DATABASE_URL, pipeline: true });
    await client.connect();
  });

  afterAll(async () => {
    await client.end();
  });

  // Each test starts outside a transaction, whatever the one before it left open.
  afterEach(async () => {
    await client.query('rollback');
  });

  it('a named statement not parsed on the session yet: nothing is sent (null); once pg ran it, it groups', async () => {
    expect(StatementGroup.send(client, [{ ...named, values: [1] }])).toBeNull();
    await expect(client.query({ ...named, values: [1] })).resolves.toMatchObject({ rows: [{ n: 2 }] });
    const sent = StatementGroup.send(client, [{ ...named, values: [2] }]);
    expect(sent).not.toBeNull();
    await expect(sent).resolves.toMatchObject([{ rows: [{ n: 3 }] }]);
  });

  it('one result per statement, in order, inside a transaction it opened; values mapped as pg maps them', async () => {
    const results = await StatementGroup.send(client, [
      { text: 'begin' },
      { ...named, values: ['41'] },
      {
        text: 'select $1::timestamptz as at, $2::bytea as bytes, $3::text as nothing, $4::int[] as list, $5::jsonb as doc, $6::bool as yes',
        values: [new Date('2026-11-26T05:00:00Z'), Buffer.from([1, 2]), null, [1, 2], { a: 1 }, true],
      },
      { text: 'select pg_current_xact_id_if_assigned() is null as idle, current_setting($1) as level', values: ['transaction_isolation'] },
    ]);
    expect(results?.map((result) => result.command)).toEqual(['BEGIN', 'SELECT', 'SELECT', 'SELECT']);
    expect(results?.[1]?.rows).toEqual([{ n: 42 }]);
    expect(results?.[2]?.rows).toEqual([
      { at: new Date('2026-11-26T05:00:00Z'), bytes: Buffer.from([1, 2]), nothing: null, list: [1, 2], doc: { a: 1 }, yes: true },
    ]);
    expect(client.getTransactionStatus()).toBe('T');
    await client.query('rollback');
    expect(client.getTransactionStatus()).toBe('I');
  });

  it('a failing statement fails the group with its error; the ones after it do not run; the session goes on', async () => {
    await client.query('create temporary table if not exists group_contract (id int primary key)');
    const failed = StatementGroup.send(client, [
      { text: 'begin' },
      { text: 'select 1 / $1::int as boom', values: [0] },
      { text: 'insert into group_contract values (1)' },
    ]);
    await expect(failed).rejects.toBeInstanceOf(DatabaseError);
    await expect(failed).rejects.toMatchObject({ code: '22012' });
    // pg settles a failed query on its error, before the session's ReadyForQuery (so the
    // transaction status may not be read yet): the next statement shows the transaction aborted.
    await expect(client.query('select 1')).rejects.toMatchObject({ code: '25P02' });
    expect(client.getTransactionStatus()).toBe('E');
    await client.query('rollback');
    await expect(client.query('select count(*)::int as n from group_contract')).resolves.toMatchObject({ rows: [{ n: 0 }] });
  });

  it('statements pipelined behind a group are answered in order, each its own', async () => {
    const group = StatementGroup.send(client, [{ text: 'select 1 as a' }, { text: 'select 2 as b' }]);
    const after = client.query('select 3 as c');
    await expect(group).resolves.toMatchObject([{ rows: [{ a: 1 }] }, { rows: [{ b: 2 }] }]);
    await expect(after).resolves.toMatchObject({ rows: [{ c: 3 }] });
  });
});
