import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';

/**
 * Runs pending migrations before the app serves (and for `npm run migration:run`); the names of those
 * it ran, in order (none: the schema was up to date). Several instances may start at once, so the run
 * is serialised with a session advisory lock on the migration connection (pool of one).
 */
export async function runMigrations(url: string, schema: string): Promise<string[]> {
  const ds = new DataSource({ ...dataSourceOptions(url, schema, { max: 1, min: 0 }), entities: [] });
  await ds.initialize();
  try {
    await ds.query(`select pg_advisory_lock(hashtext('enrollment-service:migrations'))`);
    try {
      await ds.query(`create schema if not exists "${schema}"`);
      return (await ds.runMigrations({ transaction: 'each' })).map((migration) => migration.name);
    } finally {
      await ds.query(`select pg_advisory_unlock(hashtext('enrollment-service:migrations'))`);
    }
  } finally {
    await ds.destroy();
  }
}
