// `npm run keys:reencrypt`: rewrites every user field (users, user_addresses, user_phones) that is
// not yet a row-bound `v2` value under the current data key: values written before rows were bound
// (`v1`, movable between rows of one column) and values under a data key being retired. Safe while
// the service runs: each row is rewritten only if it still holds what was read (compare and set),
// so a concurrent user update is never overwritten. Reads DATABASE_URL, DB_SCHEMA and SERVICE_KEYS
// like the service.
import { Client } from 'pg';
import { loadEnv } from './config/env';
import { FieldCipher } from './infrastructure/crypto/field-cipher';
import { KeyStore } from './infrastructure/crypto/key-store';
import { USER_CIPHER_CONTEXT } from './modules/user/repositories/user.repository';

const TABLES: Array<{ table: string; columns: Record<string, string> }> = [
  {
    table: 'users',
    columns: {
      first_name_enc: USER_CIPHER_CONTEXT.firstName,
      middle_name_enc: USER_CIPHER_CONTEXT.middleName,
      last_name_enc: USER_CIPHER_CONTEXT.lastName,
      date_of_birth_enc: USER_CIPHER_CONTEXT.dateOfBirth,
      ssn_enc: USER_CIPHER_CONTEXT.ssn,
      ssn_suffix_enc: USER_CIPHER_CONTEXT.ssnSuffix,
      itin_enc: USER_CIPHER_CONTEXT.itin,
      matricula_enc: USER_CIPHER_CONTEXT.matricula,
      email_enc: USER_CIPHER_CONTEXT.email,
    },
  },
  { table: 'user_addresses', columns: { address_enc: USER_CIPHER_CONTEXT.address } },
  { table: 'user_phones', columns: { number_enc: USER_CIPHER_CONTEXT.phone } },
];

export async function reencrypt(db: Client, keys: KeyStore): Promise<Record<string, number>> {
  const cipher = new FieldCipher(keys);
  const current = `v2.${keys.material.currentDataKeyId}.`;
  const rewritten: Record<string, number> = {};
  let unreadable = 0;
  for (const { table, columns } of TABLES) {
    rewritten[table] = 0;
    const names = Object.keys(columns);
    const stale = names.map((c) => `(${c} is not null and left(${c}, length($1)) <> $1)`).join(' or ');
    const rows = await db.query<Record<string, string | null>>(`select id, ${names.join(', ')} from ${table} where ${stale}`, [current]);
    for (const row of rows.rows) {
      const id = row.id as string;
      let changes: Array<{ column: string; before: string; after: string }>;
      try {
        changes = names
          .filter((column) => row[column] !== null && !(row[column] as string).startsWith(current))
          .map((column) => ({
            column,
            before: row[column] as string,
            after: cipher.encrypt(cipher.decrypt(row[column] as string, columns[column], id), columns[column], id),
          }));
      } catch {
        // A value that does not decrypt (tampered, or its key is gone) is left as it is and counted.
        unreadable += 1;
        continue;
      }
      const sets = changes.map((c, i) => `${c.column} = $${2 + i * 2}`).join(', ');
      const guards = changes.map((c, i) => `${c.column} = $${3 + i * 2}`).join(' and ');
      const result = await db.query(`update ${table} set ${sets} where id = $1 and ${guards}`, [id, ...changes.flatMap((c) => [c.after, c.before])]);
      rewritten[table] += result.rowCount ?? 0;
    }
  }
  return unreadable > 0 ? { ...rewritten, unreadable } : rewritten;
}

async function main(): Promise<void> {
  const env = loadEnv();
  if (!env.databaseUrl) throw new Error('DATABASE_URL must name the database to re-encrypt');
  const keys = await KeyStore.from(env.serviceKeys, env.appMode === 'sandbox', env.dataDir);
  const db = new Client({ connectionString: env.databaseUrl, options: `-c search_path=${env.dbSchema}` });
  await db.connect();
  try {
    process.stdout.write(`${JSON.stringify(await reencrypt(db, keys))}\n`);
  } finally {
    await db.end();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`keys:reencrypt failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
