// `npm run migration:run`: the pending migrations of DATABASE_URL's DB_SCHEMA, run as the service
// runs them before it serves (runMigrations: the schema created when missing, one instance at a time
// under an advisory lock), for an operator who migrates ahead of a deployment. The TypeORM CLI
// (`npm run typeorm`, ormconfig.ts) stays for generating and reverting migrations.
import { databaseTlsGap } from './config/app-config';
import { loadEnv } from './config/env';
import { runMigrations } from './infrastructure/database/migrate';

async function main(): Promise<void> {
  const env = loadEnv();
  if (!env.databaseUrl) throw new Error('DATABASE_URL must be set');
  // The production rule of the service's own start (CONTRACT section 12): no credentials in clear text.
  const tls = env.appMode === 'production' ? databaseTlsGap(env) : undefined;
  if (tls) throw new Error(`APP_MODE=production: ${tls}`);
  const applied = await runMigrations(env.databaseUrl, env.dbSchema);
  process.stdout.write(
    applied.length === 0
      ? `migrations of schema "${env.dbSchema}" are up to date\n`
      : `applied ${applied.length} migrations to schema "${env.dbSchema}": ${applied.join(', ')}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`migration:run failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
