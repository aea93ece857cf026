import { DataSource } from 'typeorm';
import { loadEnv } from './src/config/env';
import { dataSourceOptions } from './src/infrastructure/database/data-source-options';

// DataSource for the TypeORM CLI (`npm run typeorm -- migration:generate …`, `migration:revert`); needs
// DATABASE_URL. Pending migrations run with `npm run migration:run` (src/migrations-run.ts), as the
// service runs them at start: the schema created when missing, under the migrations' advisory lock.
const env = loadEnv();
if (!env.databaseUrl) throw new Error('Set DATABASE_URL to use the TypeORM CLI');
export default new DataSource(dataSourceOptions(env.databaseUrl, env.dbSchema));
