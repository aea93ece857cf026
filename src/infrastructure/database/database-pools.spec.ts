import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { ClsServiceManager } from 'nestjs-cls';
import * as pg from 'pg';
import { DatabasePools } from './database-pools';

describe(DatabasePools.name, () => {
  const sut = new DatabasePools();
  const ended: pg.Pool[] = [];

  afterAll(async () => {
    await Promise.all(ended.map((pool) => pool.end()));
  });

  it("gives TypeORM pg with a Pool that registers itself under its data source's name (nothing connects until asked)", () => {
    expect(() => sut.pool()).toThrow('the default data source has no pool yet');
    const driver = sut.driverFor('default');
    const pool = new driver.Pool({ max: 1 });
    ended.push(pool);
    expect(pool).toBeInstanceOf(pg.Pool);
    expect(sut.pool()).toBe(pool);
    expect(pool.totalCount).toBe(0);
    expect(driver.Client).toBe(pg.Client);
  });

  it("keeps each data source's pool apart", () => {
    const delivery = new (sut.driverFor('delivery').Pool)({ max: 1 });
    ended.push(delivery);
    expect(sut.pool('delivery')).toBe(delivery);
    expect(sut.pool()).not.toBe(delivery);
  });

  it("gives every new client a permanent 'error' listener (pg-pool's onConnect): a lost server costs no process", () => {
    const pool = new (sut.driverFor('guarded').Pool)({ max: 1 });
    ended.push(pool);
    const onConnect = (pool.options as pg.PoolConfig).onConnect;
    const client = new EventEmitter();
    onConnect?.(client as pg.ClientBase);
    expect(client.listenerCount('error')).toBe(1);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      expect(() => client.emit('error', Object.assign(new Error('terminating connection'), { code: '57P01' }))).not.toThrow();
      expect(() => client.emit('error', new Error('again'))).not.toThrow();
      // Logged with the SQLSTATE only: an error's message can quote a statement's values.
      expect(warn.mock.calls).toEqual([
        [{ errorCode: '57P01' }, 'database connection lost'],
        [{ errorCode: undefined }, 'database connection lost'],
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it('logs a lost connection outside the request whose context its socket carries (no unrelated requestId)', () => {
    const pool = new (sut.driverFor('context').Pool)({ max: 1 });
    ended.push(pool);
    const cls = ClsServiceManager.getClsService();
    const client = new EventEmitter();
    (pool.options as pg.PoolConfig).onConnect?.(client as pg.ClientBase);
    const requestIds: unknown[] = [];
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {
      requestIds.push(cls.isActive() ? cls.get('requestId') : 'no context');
    });
    try {
      // The socket's 'error' comes in the context of the request that opened the connection.
      cls.run(() => {
        cls.set('requestId', 'answered-long-ago');
        client.emit('error', Object.assign(new Error('terminating connection'), { code: '57P01' }));
      });
      expect(requestIds).toEqual(['no context']);
    } finally {
      warn.mockRestore();
    }
  });
});
