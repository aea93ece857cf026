import { EventEmitter } from 'node:events';
import { prepared, wrapClientQuery } from './prepared-statements';

describe('prepared statements', () => {
  function fakeClient() {
    const calls: unknown[][] = [];
    // Like pg's Client#query: a query object (a named statement) is answered through its callback, anything else by a promise.
    const query = (...args: unknown[]) => {
      calls.push(args);
      const named = args[0] as { submit?: unknown; callback?: (error: Error | null, result: unknown) => void };
      const failing = (named as { text?: string }).text?.includes('/* fails */');
      if (typeof named.submit === 'function')
        return void setImmediate(() => (failing ? named.callback?.(new Error('boom'), undefined) : named.callback?.(null, { rows: [] })));
      return Promise.resolve({ rows: [] });
    };
    const client = Object.assign(new EventEmitter(), { query });
    wrapClientQuery(client, true);
    return { client, calls };
  }

  it('runs a marked text as a named statement, the same name every time and on every client, and answers with its result', async () => {
    const text = prepared('select 1 from accounts where id = $1 /* spec a */');
    const a = fakeClient();
    const b = fakeClient();
    await expect(a.client.query(text, ['x'])).resolves.toEqual({ rows: [] });
    await a.client.query(text, ['y']);
    await b.client.query(text, ['z']);
    const configs = [...a.calls, ...b.calls].map(([config]) => config as { name: string; text: string; values: unknown[] });
    expect(configs.map((c) => c.values)).toEqual([['x'], ['y'], ['z']]);
    expect(configs.every((c) => c.text === text)).toBe(true);
    expect(new Set(configs.map((c) => c.name)).size).toBe(1);
    expect(configs[0].name).toMatch(/^s_[A-Za-z0-9_-]{22}$/);
  });

  it('leaves an unmarked text, a query object and a callback call as they were', async () => {
    const { client, calls } = fakeClient();
    const callback = () => undefined;
    await client.query('select 2 /* spec b */', [1]);
    await client.query({ text: 'select 3' }, undefined);
    client.query(prepared('select 4 /* spec c */'), [1], callback);
    expect(calls[0]).toEqual(['select 2 /* spec b */', [1], undefined]);
    expect(calls[1]).toEqual([{ text: 'select 3' }, undefined, undefined]);
    expect(calls[2]).toEqual(['select 4 /* spec c */', [1], callback]);
  });

  it("rejects with the database's error when a named statement fails", async () => {
    const { client } = fakeClient();
    await expect(client.query(prepared('select 7 /* fails */'), [])).rejects.toThrow('boom');
  });

  it('two texts get two names', async () => {
    const { client, calls } = fakeClient();
    await client.query(prepared('select 5 /* spec d */'), []);
    await client.query(prepared('select 6 /* spec d */'), []);
    const [first, second] = calls.map(([config]) => (config as { name: string }).name);
    expect(first).not.toBe(second);
  });
});
