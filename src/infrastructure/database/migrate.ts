import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';

/**
 * Runs pending migrations before the app serves. Several instances may start at once, so the run
 * is serialised with a session advisory lock on the migration connection (pool of one).
 */
export async function runMigrations(url: string, schema: string): Promise<void> {
  const ds = new DataSource({ ...dataSourceOptions(url, schema, { max: 1, min: 0 }), entities: [] });
  await ds.initialize();
  try {
    await ds.query(`select pg_advisory_lock(hashtext('enrollment-service:migrations'))`);
    try {
      await ds.query(`create schema if not exists "${schema}"`);
      await ds.runMigrations({ transaction: 'each' });
    } finally {
      await ds.query(`select pg_advisory_unlock(hashtext('enrollment-service:migrations'))`);
    }
  } finally {
    await ds.destroy();
  }
}
