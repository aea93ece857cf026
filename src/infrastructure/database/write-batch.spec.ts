import type { QueryConfig } from 'pg';
import { EntityManager, QueryRunner } from 'typeorm';
import { prepared } from './prepared-statements';
import { WriteBatch } from './write-batch';
import { mockOf } from '../../../test/support/mock-of';

/** A manager whose connection records what it is sent (pg query configs). */
function connection() {
  const sent: QueryConfig[] = [];
  const client = {
    query: jest.fn(async (config: QueryConfig) => {
      sent.push(config);
      return { rows: [] };
    }),
  };
  const runner = mockOf<QueryRunner>({ connect: jest.fn(async () => client) });
  const manager = mockOf<EntityManager>({});
  Object.assign(manager, { queryRunner: runner });
  return { manager, sent };
}

describe(WriteBatch.name, () => {
  describe('compose', () => {
    it('one write is sent as it is', () => {
      const sut = new WriteBatch().write('update users set email_enc = $2 where id = $1', ['u-1', 'e']);
      expect(sut.compose()).toEqual({ sql: 'update users set email_enc = $2 where id = $1', params: ['u-1', 'e'] });
    });

    it('several writes become CTEs of one statement, the last one its body, parameters renumbered in order', () => {
      const sut = new WriteBatch()
        .insert('accounts', ['id', 'status'], [['a-1', 'normal']])
        .write('update users set email_enc = $2 where id = $1', ['u-1', 'e'])
        .insert('outbox_events', ['id'], [['o-1'], ['o-2']]);
      expect(sut.size).toBe(3);
      expect(sut.compose()).toEqual({
        sql:
          'with w0 as (insert into accounts (id, status) values ($1, $2)), w1 as (update users set email_enc = $4 where id = $3) ' +
          'insert into outbox_events (id) values ($5), ($6)',
        params: ['a-1', 'normal', 'u-1', 'e', 'o-1', 'o-2'],
      });
    });

    it('renumbers two-digit parameters whole', () => {
      const columns = Array.from({ length: 11 }, (_, i) => `c${i}`);
      const row = columns.map((_, i) => i);
      const { sql } = new WriteBatch()
        .insert('a', ['x'], [['first']])
        .insert('b', columns, [row])
        .compose();
      expect(sql).toContain('values ($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)');
    });

    it('an insert without rows adds nothing; a row of the wrong width is refused', () => {
      expect(new WriteBatch().insert('accounts', ['id'], []).size).toBe(0);
      expect(() => new WriteBatch().insert('accounts', ['id', 'status'], [['a-1']])).toThrow('accounts: 1 values for 2 columns');
    });
  });

  describe('execute', () => {
    it("sends the batch as one named statement on the manager's connection", async () => {
      const { manager, sent } = connection();
      await new WriteBatch().write('update a set b = $1', [1]).write('update c set d = $1', [2]).execute(manager);
      const text = 'with w0 as (update a set b = $1) update c set d = $2';
      expect(sent).toEqual([{ name: expect.stringMatching(/^s_/), text: prepared(text), values: [1, 2] }]);
    });

    it('clear forgets what was added', () => {
      const sut = new WriteBatch().write('update a set b = $1', [1]);
      sut.clear();
      expect(sut.size).toBe(0);
    });

    it('an empty batch sends nothing', async () => {
      const { manager, sent } = connection();
      await new WriteBatch().execute(manager);
      expect(sent).toEqual([]);
    });
  });
});
