// `npm run keys:reindex [-- --allow-unmapped]`: after the blind-index key of SERVICE_KEYS was
// rotated (`npm run --silent keys:rotate -- --blind-index`), recomputes every `_bidx` column under
// the new key, in one transaction with the writers locked out, and records the new key id in
// `key_versions`. The old key must be listed in `previousBlindIndexKeys`. Reads DATABASE_URL,
// DB_SCHEMA and SERVICE_KEYS (in sandbox, DATA_DIR's keys.json) like the service.
import { Client } from 'pg';
import { loadEnv } from './config/env';
import { BlindIndex, BlindIndexKind, FieldCipher } from './infrastructure/crypto/field-cipher';
import { blindIndexKeyIdOf, KeyStore } from './infrastructure/crypto/key-store';
import { BLIND_INDEX_PURPOSE } from './infrastructure/database/blind-index-version';
import { USER_CIPHER_CONTEXT } from './modules/user/repositories/user.repository';

/** Where plaintexts of indexed values live, and how each is decrypted (same contexts as the service). */
const USER_COLUMNS: Array<{ kind: BlindIndexKind; enc: string; bidx: string; context: string }> = [
  { kind: 'ssn', enc: 'ssn_enc', bidx: 'ssn_bidx', context: USER_CIPHER_CONTEXT.ssn },
  { kind: 'itin', enc: 'itin_enc', bidx: 'itin_bidx', context: USER_CIPHER_CONTEXT.itin },
  { kind: 'matricula', enc: 'matricula_enc', bidx: 'matricula_bidx', context: USER_CIPHER_CONTEXT.matricula },
];
const SCAN_CONTEXT = 'scan_captures.id_number';

export interface ReindexReport {
  from: string;
  to: string;
  users: number;
  phones: number;
  scans: number;
  limitKeys: number;
  unmapped: number;
}

export async function reindex(db: Client, keys: KeyStore, options: { allowUnmapped?: boolean } = {}): Promise<ReindexReport> {
  const cipher = new FieldCipher(keys);
  const to = keys.blindIndexKeyId;
  await db.query('begin');
  try {
    // Writers wait (readers do not) until the commit: no row is indexed under the old key meanwhile.
    await db.query('lock table key_versions, users, user_phones, scan_captures, account_limit_keys in exclusive mode');
    const stored = (await db.query<{ key_id: string }>('select key_id from key_versions where purpose = $1', [BLIND_INDEX_PURPOSE])).rows[0]?.key_id;
    if (!stored) throw new Error('key_versions records no blind-index key: start the service once with the old SERVICE_KEYS first');
    const empty: ReindexReport = { from: stored, to, users: 0, phones: 0, scans: 0, limitKeys: 0, unmapped: 0 };
    if (stored === to) {
      await db.query('rollback');
      return empty;
    }
    const oldKey = keys.previousBlindIndexKeys.find((key) => blindIndexKeyIdOf(key) === stored);
    if (!oldKey) throw new Error(`no key of previousBlindIndexKeys has the id the data is indexed under (${stored})`);

    // Old index → new index, per kind: limit keys hold only indexes, mapped through it.
    const moved = new Map<string, string>();
    const index = (kind: BlindIndexKind, plain: string): string => {
      const next = BlindIndex.under(keys.blindIndexKey, kind, plain);
      moved.set(`${kind}:${BlindIndex.under(oldKey, kind, plain)}`, next);
      return next;
    };
    const report = { ...empty };

    const users = await db.query<Record<string, string | null>>(`select id, ${USER_COLUMNS.map((c) => c.enc).join(', ')} from users`);
    for (const user of users.rows) {
      const sets = USER_COLUMNS.filter((c) => user[c.enc] !== null).map((c) => ({
        column: c.bidx,
        value: index(c.kind, cipher.decrypt(user[c.enc] as string, c.context, user.id as string)),
      }));
      if (sets.length === 0) continue;
      await db.query(`update users set ${sets.map((s, i) => `${s.column} = $${i + 2}`).join(', ')} where id = $1`, [user.id, ...sets.map((s) => s.value)]);
      report.users += 1;
    }
    const phones = await db.query<{ id: string; number_enc: string }>('select id, number_enc from user_phones');
    for (const phone of phones.rows) {
      await db.query('update user_phones set number_bidx = $2 where id = $1', [
        phone.id,
        index('phone', cipher.decrypt(phone.number_enc, USER_CIPHER_CONTEXT.phone, phone.id)),
      ]);
      report.phones += 1;
    }
    const scans = await db.query<{ id: string; id_number_enc: string }>('select id, id_number_enc from scan_captures');
    for (const scan of scans.rows) {
      await db.query('update scan_captures set id_number_bidx = $2 where id = $1', [
        scan.id,
        index('matricula', cipher.decrypt(scan.id_number_enc, SCAN_CONTEXT)),
      ]);
      report.scans += 1;
    }
    const limitKeys = await db.query<{ account_id: string; key_kind: BlindIndexKind; key_bidx: string }>(
      'select account_id, key_kind, key_bidx from account_limit_keys',
    );
    for (const key of limitKeys.rows) {
      const next = moved.get(`${key.key_kind}:${key.key_bidx}`);
      if (next === undefined) {
        report.unmapped += 1;
        continue;
      }
      await db.query('update account_limit_keys set key_bidx = $4 where account_id = $1 and key_kind = $2 and key_bidx = $3', [
        key.account_id,
        key.key_kind,
        key.key_bidx,
        next,
      ]);
      report.limitKeys += 1;
    }
    if (report.unmapped > 0 && !options.allowUnmapped) {
      throw new Error(`${report.unmapped} limit keys match no stored SSN, ITIN or phone; nothing was changed (--allow-unmapped leaves them uncounted)`);
    }
    await db.query('update key_versions set key_id = $2, updated_at = now() where purpose = $1', [BLIND_INDEX_PURPOSE, to]);
    await db.query('commit');
    return report;
  } catch (error) {
    await db.query('rollback').catch(() => undefined);
    throw error;
  }
}

async function main(): Promise<void> {
  const env = loadEnv();
  if (!env.databaseUrl) throw new Error('DATABASE_URL must name the database to re-index');
  const keys = await KeyStore.from(env.serviceKeys, env.appMode === 'sandbox', env.dataDir);
  const db = new Client({ connectionString: env.databaseUrl, options: `-c search_path=${env.dbSchema}` });
  await db.connect();
  try {
    const report = await reindex(db, keys, { allowUnmapped: process.argv.includes('--allow-unmapped') });
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await db.end();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`keys:reindex failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
