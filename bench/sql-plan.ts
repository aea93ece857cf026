import type { Pool, PoolClient } from 'pg';
import { prepared } from '../src/infrastructure/database/prepared-statements';

/**
 * A request's SQL "plan": one letter per statement, in order. The probe records it for the
 * service; baseline (a) replays the same letters through `pg` (replayPlan): its selects as the
 * service's recorded reads when it has them, every other statement a trivial one of its kind.
 */
export const KIND_LETTERS = {
  begin: 'B',
  commit: 'C',
  rollback: 'R',
  select: 'S',
  insert: 'I',
  update: 'U',
  delete: 'D',
  other: 'O',
} as const;

export function statementKind(sql: string): string {
  const word = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? '';
  switch (word) {
    case 'begin':
    case 'start':
      return KIND_LETTERS.begin;
    case 'commit':
      return KIND_LETTERS.commit;
    case 'rollback':
      return KIND_LETTERS.rollback;
    case 'select':
      return KIND_LETTERS.select;
    case 'with':
      return writingVerb(sql) ?? KIND_LETTERS.select;
    case 'insert':
      return KIND_LETTERS.insert;
    case 'update':
      return KIND_LETTERS.update;
    case 'delete':
      return KIND_LETTERS.delete;
    default:
      return KIND_LETTERS.other;
  }
}

/** A row lock's words (`FOR UPDATE`, `FOR NO KEY UPDATE`): its `update` is not a write. */
const ROW_LOCK = String.raw`for\s+(?:no\s+key\s+)?update`;
const ROW_LOCK_WORDS = new RegExp(String.raw`\b${ROW_LOCK}\b`, 'gi');
/** A whole row-lock clause, with its `OF` list and `NOWAIT` / `SKIP LOCKED`, up to the end of its select. */
const ROW_LOCK_CLAUSE = new RegExp(String.raw`\s+${ROW_LOCK}(?:\s+of\s+[\w.,\s]+?)?(?:\s+(?:nowait|skip\s+locked))?(?=\s*(?:\)|;|$))`, 'gi');

/**
 * A writable CTE (`WITH w AS (UPDATE …) INSERT …`) writes: it is classed by its first
 * data-changing verb, so that baseline (a) writes (and flushes WAL at COMMIT) where the service
 * does. A row lock (`FOR UPDATE`, `FOR NO KEY UPDATE`) is not a write.
 */
function writingVerb(sql: string): string | undefined {
  const verb = /\b(insert|update|delete)\b/i.exec(sql.replace(ROW_LOCK_WORDS, ''))?.[1]?.toLowerCase();
  return verb === 'insert' ? KIND_LETTERS.insert : verb === 'update' ? KIND_LETTERS.update : verb === 'delete' ? KIND_LETTERS.delete : undefined;
}

/** The most frequent plan among calibration requests (ties: the longer one). */
export function dominantPlan(plans: string[]): string {
  const counts = new Map<string, number>();
  for (const plan of plans) counts.set(plan, (counts.get(plan) ?? 0) + 1);
  let best = '';
  let bestCount = 0;
  for (const [plan, count] of counts) {
    if (count > bestCount || (count === bestCount && plan.length > best.length)) {
      best = plan;
      bestCount = count;
    }
  }
  return best;
}

export function describePlan(plan: string): string {
  if (!plan) return 'none';
  const counts = new Map<string, number>();
  for (const letter of plan) counts.set(letter, (counts.get(letter) ?? 0) + 1);
  return [...counts].map(([letter, count]) => `${count}${letter}`).join(' ');
}

const SEED_ROWS = 1000;

/** Baseline (a)'s table in `schema`: 1,000 rows to select and update by key. */
export async function prepareBaselineRows(pool: Pool, schema: string): Promise<void> {
  await pool.query(`create schema if not exists ${schema}`);
  await pool.query(
    `create table if not exists ${schema}.bench_rows (id bigserial primary key, payload text not null, updated_at timestamptz not null default now())`,
  );
  await pool.query(`truncate ${schema}.bench_rows restart identity`);
  await pool.query(`insert into ${schema}.bench_rows (payload) select md5(g::text) from generate_series(1, ${SEED_ROWS}) g`);
}

function randomId(): number {
  return 1 + Math.floor(Math.random() * SEED_ROWS);
}

/**
 * A read the service issued during calibration, recorded by the probe: its text, its parameter
 * values (JSON-safe: a Buffer as `{ $base64 }`) and whether the service ran it as a named
 * prepared statement.
 */
export interface RecordedRead {
  text: string;
  values: unknown[];
  named: boolean;
}

export function encodeValues(values: unknown): unknown[] {
  if (!Array.isArray(values)) return [];
  return values.map((value) =>
    Buffer.isBuffer(value) ? { $base64: value.toString('base64') } : value instanceof Date ? value.toISOString() : (value as unknown),
  );
}

function decodeValue(value: unknown): unknown {
  const base64 = value && typeof value === 'object' && '$base64' in value ? (value as { $base64: unknown }).$base64 : undefined;
  return typeof base64 === 'string' ? Buffer.from(base64, 'base64') : value;
}

/**
 * A recorded read as baseline (a) runs it: the same text without its row-lock clause, the same
 * values, prepared when the service's was (marked through the service's own `prepared`, so the
 * baseline pool's clients name it as the service's do). The lock clause goes because (a) cycles
 * through the few rows of the calibration requests with 50 connections: the locks would queue
 * there, where the service spreads its calls over thousands of accounts; without them (a) is, if
 * anything, cheaper than the service's read.
 */
export function asBaselineRead(read: RecordedRead): RecordedRead {
  const text = read.text.replace(ROW_LOCK_CLAUSE, '');
  if (read.named) prepared(text);
  return { text, values: read.values.map(decodeValue), named: read.named };
}

/**
 * Baseline (a)'s side of a plan: each select as the next of `reads` (the service's own reads of one
 * calibration request, see asBaselineRead) while there is one, every other letter as a trivial
 * statement of its kind on `bench_rows` (search_path: the service's schema, then the baseline's).
 */
export async function replayPlan(client: PoolClient, plan: string, payload: string, reads: readonly RecordedRead[] = []): Promise<void> {
  let nextRead = 0;
  for (const letter of plan) {
    const read = letter === KIND_LETTERS.select ? reads[nextRead++] : undefined;
    if (read) {
      await client.query(read.text, read.values);
      continue;
    }
    switch (letter) {
      case KIND_LETTERS.begin:
        await client.query('begin');
        break;
      case KIND_LETTERS.commit:
        await client.query('commit');
        break;
      case KIND_LETTERS.rollback:
        await client.query('rollback');
        break;
      case KIND_LETTERS.select:
        await client.query('select id, payload, updated_at from bench_rows where id = $1', [randomId()]);
        break;
      case KIND_LETTERS.insert:
        await client.query('insert into bench_rows (payload) values ($1) returning id', [payload]);
        break;
      case KIND_LETTERS.update:
        await client.query('update bench_rows set payload = $1, updated_at = now() where id = $2', [payload, randomId()]);
        break;
      case KIND_LETTERS.delete:
        await client.query('delete from bench_rows where id = $1', [-1]);
        break;
      default:
        await client.query('select 1');
    }
  }
}
