import { DataSource } from 'typeorm';
import { loadEnv } from './src/config/env';
import { dataSourceOptions } from './src/infrastructure/database/data-source-options';

// DataSource for the TypeORM CLI (`npm run typeorm -- migration:run`); needs DATABASE_URL.
const env = loadEnv();
if (!env.databaseUrl) throw new Error('Set DATABASE_URL to use the TypeORM CLI');
export default new DataSource(dataSourceOptions(env.databaseUrl, env.dbSchema));
