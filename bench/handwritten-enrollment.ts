/**
 * Baseline (c): the essential work of a new consumer enrollment written by hand with `pg`, in ONE
 * transaction on one pooled connection, as a careful hand-written server would do it. It answers
 * "how fast can this enrollment go on this machine and database", which the service's enrollment
 * scenario is compared against (issue 10: enrollment ≥ 60% of (c)).
 *
 * Round trips of a new enrollment (HANDWRITTEN_STATEMENTS, 9, one commit):
 *   1 begin
 *   2 select pg_advisory_xact_lock(k1), ... (requestId, ssn and limit keys; sorted; one statement)
 *   3 insert idempotency_keys ... on conflict do nothing returning fingerprint
 *   4 select the active/lifetime counts of every limit key (ssn, default phone) in one statement
 *   5 with account (insert accounts, final state), purse (insert purses), limit keys (multi-row)
 *   6 with user (insert users), addresses (multi-row), phones (multi-row)
 *   7 with card (insert payment_instruments), outbox events (multi-row)
 *   8 update idempotency_keys set the stored answer (built in memory, no read-back)
 *   9 commit
 *
 * It uses the service's own tables (its migrations are run into the baseline's schema) and encrypts
 * like the service: AES-256-GCM per field with the column as additional data, HMAC-SHA256 blind
 * indexes for the SSN and the phone. Schema tolerance: it writes only columns of the initial
 * migration and never `request_enc`, `state`, `recovery_point` or `account_id` of idempotency_keys
 * (they are moving to an enrollment row); when the schema changes, see STATEMENTS below.
 */
import { createCipheriv, createHash, createHmac, createSecretKey, KeyObject, randomBytes, randomInt, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Pool, QueryResultRow } from 'pg';
import { ERROR_CATALOGUE, SUCCESS_DETAIL } from '../src/common/errors/error-catalogue';
import { embossName } from '../src/common/validation/characters';
import { prepared } from '../src/infrastructure/database/prepared-statements';

/** What one new enrollment of (c) sends, in order; the report prints it. */
export const HANDWRITTEN_STATEMENTS = [
  'begin',
  'advisory xact locks (requestId, ssn, limit keys), one select',
  'insert idempotency row on conflict do nothing',
  'limit counts of every key, one select',
  'insert account (final state) + purse + limit keys, one writable CTE',
  'insert user + addresses + phones, one writable CTE',
  'insert card + outbox events, one writable CTE',
  'update idempotency row with the answer',
  'commit',
] as const;

const OPERATION = 'enrollment';
const RETENTION_DAYS = 30;
/** SERVICE.md's consumer limits [active, lifetime] (the bench program keeps the defaults). */
const LIMITS = { ssn: [1, 3], phone: [2, 10] } as const;
const ROUTING_NUMBER = '011000015';
/** AES-GCM additional data per column, as the service binds them (user-records.service.ts). */
const CONTEXT = {
  accountData: 'accounts.encrypted_account_data',
  firstName: 'users.first_name',
  middleName: 'users.middle_name',
  lastName: 'users.last_name',
  dateOfBirth: 'users.date_of_birth',
  ssn: 'users.ssn',
  email: 'users.email',
  address: 'user_addresses.address',
  phone: 'user_phones.number',
} as const;

/**
 * The SQL of (c), one entry per round trip (plus `existing`, only for a requestId seen before).
 * The tables come from the service's migrations, so a migration that renames or drops a column
 * written here, or adds a NOT NULL column without a default, breaks (c) at its first request
 * (a 500 in the bench's (c) errors, the cause in bench/results/baseline.log): change the statement
 * here and, when a round trip is added or removed, HANDWRITTEN_STATEMENTS above. A new table the
 * service writes per enrollment (e.g. an `enrollments` row) belongs in one of the writable CTEs,
 * not in a new round trip, when it should count in (c).
 */
const STATEMENTS = {
  idempotency: `insert into idempotency_keys (partner_id, program_code, request_id, operation, fingerprint, expires_at)
    values ($1, $2, $3, $4, $5, now() + make_interval(days => $6::int))
    on conflict (partner_id, program_code, request_id) do nothing
    returning fingerprint`,
  existing: `select fingerprint, response_status, response_body from idempotency_keys
    where partner_id = $1 and program_code = $2 and request_id = $3`,
  account: `with account as (
      insert into accounts (id, partner_id, program_code, account_type, status, kyc_pending_gate, account_cycle_day, currency,
                            identity_kind, encrypted_account_data_enc, request_id, created_at, activated_at, updated_at)
      values ($1, $2, $3, $4, 'normal', 'none', $5, $6, 'ssn', $7, $8, $9, $9, $9)
      returning id),
    purse as (
      insert into purses (id, account_id, purse_type, currency, created_at) select $10, id, 'primary', $6, $9 from account),
    limit_keys as (
      insert into account_limit_keys (account_id, key_kind, key_bidx, program_code, account_type)
      select account.id, k.kind, k.bidx, $3, $4 from account, unnest($11::text[], $12::text[]) as k(kind, bidx)),
    progress as (
      insert into enrollments (account_id, program_code, recovery_point, created_at, updated_at) select id, $3, 'finished', $9, $9 from account)
    select id from account`,
  user: `with app_user as (
      insert into users (id, account_id, is_primary, status, first_name_enc, middle_name_enc, last_name_enc, date_of_birth_enc,
                         ssn_enc, email_enc, ssn_bidx)
      values ($1, $2, true, 'active', $3, $4, $5, $6, $7, $8, $9)
      returning id),
    addresses as (
      insert into user_addresses (id, user_id, type, is_default, address_enc)
      select a.id, app_user.id, a.type, a.is_default, a.enc from app_user, unnest($10::uuid[], $11::text[], $12::boolean[], $13::text[]) as a(id, type, is_default, enc)),
    phones as (
      insert into user_phones (id, user_id, phone_type, is_default, number_enc, number_bidx)
      select p.id, app_user.id, p.type, p.is_default, p.enc, p.bidx from app_user, unnest($14::uuid[], $15::text[], $16::boolean[], $17::text[], $18::text[]) as p(id, type, is_default, enc, bidx))
    select id from app_user`,
  // The bench partner has no webhook, so its events are stored as not deliverable (dead, no job),
  // exactly as the service's OutboxRepository does for it.
  card: `with card as (
      insert into payment_instruments (id, account_id, user_id, type, status, last4, expiration_date, embossed_name)
      values ($1, $2, $3, 'virtual', 'active', $4, $5, $6)
      returning id),
    events as (
      insert into outbox_events (id, partner_id, program_code, account_id, event_type, payload, next_attempt_at, dead)
      select e.id, $7, $8, $2, e.type, e.payload, null, true from card, unnest($9::uuid[], $10::text[], $11::jsonb[]) as e(id, type, payload))
    select id from card`,
  answer: `update idempotency_keys set response_status = $4, response_body = $5, updated_at = now()
    where partner_id = $1 and program_code = $2 and request_id = $3 and response_body is null`,
} as const;
// They run as named prepared statements, as the service runs the statements of its request path
// (the baseline server's pool prepares marked texts on connect): until 2026-11-23 (c) sent them
// unnamed, and PostgreSQL parsed and planned each of them on every enrollment.
for (const text of Object.values(STATEMENTS)) prepared(text);

const COUNTS = new Map<number, string>();

/**
 * The limit counts of `keys` keys in one select, prepared: one lateral index look-up per key, the
 * keys as a VALUES list (parameters $3, $4 for the first key's kind and blind index, and so on).
 * Until 2026-11-23 (c) joined `unnest` of two arrays to the keys and accounts: planned with its
 * values on every call (the array's length unknown to a generic plan), it slowed as the accounts
 * grew (docs/design-notes.md, "Prepared statements").
 */
function countsStatement(keys: number): string {
  let text = COUNTS.get(keys);
  if (text === undefined) {
    const values = Array.from({ length: keys }, (_, i) => `($${3 + 2 * i}::text, $${4 + 2 * i}::text)`).join(', ');
    text = prepared(`select q.kind, c.active, c.lifetime
      from (values ${values}) as q(kind, bidx)
      cross join lateral (
        select count(a.id) filter (where a.status <> 'closed')::int as active,
               count(a.id) filter (where a.status <> 'closed' or a.activated_at is not null)::int as lifetime
          from account_limit_keys k
          join accounts a on a.id = k.account_id
         where k.program_code = $1 and k.account_type = $2 and k.key_kind = q.kind and k.key_bidx = q.bidx) c`);
    COUNTS.set(keys, text);
  }
  return text;
}

export interface HandwrittenKeys {
  dataKeyId: string;
  /** KeyObjects, imported once, as the service holds them (a raw Buffer key costs more per call on Node 24). */
  dataKey: KeyObject;
  blindIndexKey: KeyObject;
}

export function generateKeys(): HandwrittenKeys {
  return {
    dataKeyId: `dk-bench-${randomBytes(3).toString('hex')}`,
    dataKey: createSecretKey(randomBytes(32)),
    blindIndexKey: createSecretKey(randomBytes(32)),
  };
}

/** Per-process counters of finished requests that reached the database, read by run.ts through GET /handwritten/stats. */
export interface HandwrittenStats {
  requests: number;
  statements: number;
  commits: number;
}

export interface HandwrittenAnswer {
  status: number;
  body: string;
}

interface Address {
  type?: string;
  isDefault?: boolean;
  addressLine1?: string;
  addressLine2?: string;
  city?: string;
  state?: string;
  zipCode?: string;
  countryCode?: string;
}

interface Phone {
  phoneType?: string;
  number?: string;
  isDefault?: boolean;
}

interface EnrollmentBody {
  requestId?: unknown;
  currency?: string;
  encryptedUserData?: {
    firstName?: string;
    middleName?: string;
    lastName?: string;
    identifyingData?: { dateOfBirth?: string; ssn?: string };
    addresses?: Address[];
    phoneNumbers?: Phone[];
    email?: { emailAddress?: string };
  };
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

function envelope(requestId: string, detail: { code: number; subCode: number; description: string }, payload: object = {}): string {
  return JSON.stringify({ requestId, responseDetails: [{ code: detail.code, subCode: detail.subCode, description: detail.description }], ...payload });
}

function failure(requestId: string, key: keyof typeof ERROR_CATALOGUE): HandwrittenAnswer {
  const entry = ERROR_CATALOGUE[key];
  return { status: entry.http, body: envelope(requestId, entry) };
}

/** Takes the JSON body Fastify parsed and does the enrollment; never throws for a client error. */
export class HandwrittenEnrollment {
  readonly stats: HandwrittenStats = { requests: 0, statements: 0, commits: 0 };

  constructor(
    private readonly pool: Pool,
    private readonly keys: HandwrittenKeys,
    private readonly partnerId: string,
  ) {}

  async enroll(programCode: string, body: unknown, fallbackRequestId: string): Promise<HandwrittenAnswer> {
    const input = (body ?? {}) as EnrollmentBody;
    const data = input.encryptedUserData;
    const id = data?.identifyingData;
    if (typeof input.requestId !== 'string' || !REQUEST_ID.test(input.requestId)) return failure(fallbackRequestId, 'REQUIRED_FIELD_MISSING');
    const requestId = input.requestId;
    if (!data?.firstName || !data.lastName || !id?.dateOfBirth || !id.ssn) return failure(requestId, 'REQUIRED_FIELD_MISSING');
    const fingerprint = createHash('sha256')
      .update(`${OPERATION}\n${canonicalize(body) ?? ''}`)
      .digest('hex');
    const ssnBidx = this.blindIndex('ssn', id.ssn);
    const phones = (data.phoneNumbers ?? []).map((phone, i) => ({ ...phone, isDefault: phone.isDefault ?? i === 0 }));
    const defaultPhone = phones.find((phone) => phone.isDefault)?.number;
    const limitKeys = [
      { kind: 'ssn' as const, bidx: ssnBidx },
      ...(defaultPhone ? [{ kind: 'phone' as const, bidx: this.blindIndex('phone', defaultPhone) }] : []),
    ];
    const lockNames = [
      `requestId:${this.partnerId}:${programCode}:${requestId}`,
      `ssn:${programCode}:${ssnBidx}`,
      ...limitKeys.map((k) => `limit:${programCode}:${k.kind}:${k.bidx}`),
    ];

    const client = await this.pool.connect();
    // Added to the stats when the request ends, so a snapshot never counts a request half-way.
    let statements = 0;
    let commits = 0;
    const query = <R extends QueryResultRow>(text: string, values?: unknown[]) => {
      statements += 1;
      return client.query<R>(text, values);
    };
    let broken: unknown;
    try {
      await query('begin');
      try {
        await query(advisoryXactLocks(lockNames));
        const fresh = await query(STATEMENTS.idempotency, [this.partnerId, programCode, requestId, OPERATION, fingerprint, RETENTION_DAYS]);
        if (fresh.rowCount === 0) {
          const answer = await this.existing(query, programCode, requestId, fingerprint);
          await query('rollback');
          return answer;
        }
        const counts = await query<{ kind: 'ssn' | 'phone'; active: number; lifetime: number }>(countsStatement(limitKeys.length), [
          programCode,
          'consumer',
          ...limitKeys.flatMap((k) => [k.kind, k.bidx]),
        ]);
        const breach = this.breach(counts.rows);
        const answer = breach
          ? { status: 200, body: envelope(requestId, ERROR_CATALOGUE[breach]) }
          : await this.write(query, programCode, requestId, input, phones, limitKeys);
        await query(STATEMENTS.answer, [this.partnerId, programCode, requestId, answer.status, answer.body]);
        await query('commit');
        commits += 1;
        return answer;
      } catch (error) {
        await query('rollback').catch((rollbackError: unknown) => {
          broken = rollbackError;
        });
        throw error;
      }
    } finally {
      client.release(broken as Error | undefined);
      this.stats.requests += 1;
      this.stats.statements += statements;
      this.stats.commits += commits;
    }
  }

  /** Statements 5-7: every row of the enrollment; the answer is built from what was written. */
  private async write(
    query: (text: string, values?: unknown[]) => Promise<unknown>,
    programCode: string,
    requestId: string,
    input: EnrollmentBody,
    phones: Phone[],
    limitKeys: Array<{ kind: string; bidx: string }>,
  ): Promise<HandwrittenAnswer> {
    const data = input.encryptedUserData as NonNullable<EnrollmentBody['encryptedUserData']>;
    const identifying = data.identifyingData as { dateOfBirth: string; ssn: string };
    const now = new Date();
    const currency = input.currency ?? 'USD';
    const accountId = randomUUID();
    const purseId = randomUUID();
    const userId = randomUUID();
    const cardId = randomUUID();
    const cycleDay = Math.min(now.getUTCDate(), 28);
    const accountData = { directDeposit: { routingNumber: ROUTING_NUMBER, accountNumber: String(randomInt(1e11, 1e12)) } };
    await query(STATEMENTS.account, [
      accountId,
      this.partnerId,
      programCode,
      'consumer',
      cycleDay,
      currency,
      this.encrypt(JSON.stringify(accountData), CONTEXT.accountData),
      requestId,
      now,
      purseId,
      limitKeys.map((k) => k.kind),
      limitKeys.map((k) => k.bidx),
    ]);

    const addresses = (data.addresses ?? []).map((address, i) => ({
      id: randomUUID(),
      type: address.type ?? 'home',
      isDefault: address.isDefault ?? i === 0,
      enc: this.encrypt(
        JSON.stringify({
          addressLine1: address.addressLine1,
          addressLine2: address.addressLine2,
          city: address.city,
          state: address.state,
          zipCode: address.zipCode,
          countryCode: address.countryCode,
        }),
        CONTEXT.address,
      ),
    }));
    const phoneRows = phones.map((phone) => ({
      id: randomUUID(),
      type: phone.phoneType ?? 'mobile',
      isDefault: phone.isDefault === true,
      enc: this.encrypt(phone.number ?? '', CONTEXT.phone),
      bidx: this.blindIndex('phone', phone.number ?? ''),
    }));
    await query(STATEMENTS.user, [
      userId,
      accountId,
      this.encrypt(data.firstName as string, CONTEXT.firstName),
      data.middleName == null ? null : this.encrypt(data.middleName, CONTEXT.middleName),
      this.encrypt(data.lastName as string, CONTEXT.lastName),
      this.encrypt(identifying.dateOfBirth, CONTEXT.dateOfBirth),
      this.encrypt(identifying.ssn, CONTEXT.ssn),
      data.email?.emailAddress == null ? null : this.encrypt(data.email.emailAddress, CONTEXT.email),
      this.blindIndex('ssn', identifying.ssn),
      addresses.map((a) => a.id),
      addresses.map((a) => a.type),
      addresses.map((a) => a.isDefault),
      addresses.map((a) => a.enc),
      phoneRows.map((p) => p.id),
      phoneRows.map((p) => p.type),
      phoneRows.map((p) => p.isDefault),
      phoneRows.map((p) => p.enc),
      phoneRows.map((p) => p.bidx),
    ]);

    const last4 = String(randomInt(0, 10_000)).padStart(4, '0');
    const expirationDate = new Date(Date.UTC(now.getUTCFullYear() + 4, now.getUTCMonth(), 1)).toISOString().slice(0, 7);
    const embossedName = embossName(`${data.firstName} ${data.lastName}`);
    const state = { status: 'normal', statusReason: null, kycPendingGate: 'none', accountCycleDay: cycleDay };
    const events = [
      { type: 'cardUpdated', payload: { paymentIdentifier: cardId, status: 'active', previousStatus: null, reason: 'issued' } },
      {
        type: 'accountUpdated',
        payload: {
          ...state,
          previous: { status: 'pending', statusReason: null, kycPendingGate: 'none', accountCycleDay: null },
          reason: 'enrollmentCompleted',
        },
      },
    ];
    await query(STATEMENTS.card, [
      cardId,
      accountId,
      userId,
      last4,
      expirationDate,
      embossedName,
      this.partnerId,
      programCode,
      events.map(() => randomUUID()),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.payload)),
    ]);

    const at = now.toISOString();
    return {
      status: 200,
      body: envelope(requestId, SUCCESS_DETAIL, {
        account: {
          accountIdentifier: accountId,
          programCode,
          accountType: 'consumer',
          ...state,
          currency,
          createdDateTime: at,
          activatedDateTime: at,
          closedDateTime: null,
          purses: [{ purseIdentifier: purseId, purseType: 'primary', currency, availableBalance: '0.00', ledgerBalance: '0.00' }],
        },
        user: { userIdentifier: userId, isPrimaryAccountHolder: true, status: 'active' },
        paymentInstruments: [{ paymentIdentifier: cardId, type: 'virtual', status: 'active', last4, expirationDate, embossedName }],
      }),
    };
  }

  /** The requestId was seen before (under its lock, so authoritative): replay, 422, or still in progress. */
  private async existing(
    query: <R extends QueryResultRow>(text: string, values?: unknown[]) => Promise<{ rows: R[] }>,
    programCode: string,
    requestId: string,
    fingerprint: string,
  ): Promise<HandwrittenAnswer> {
    const rows = (
      await query<{ fingerprint: string; response_status: number | null; response_body: string | null }>(STATEMENTS.existing, [
        this.partnerId,
        programCode,
        requestId,
      ])
    ).rows;
    const record = rows[0];
    if (record && record.fingerprint !== fingerprint) return failure(requestId, 'IDEMPOTENCY_PAYLOAD_MISMATCH');
    if (record?.response_body) return { status: record.response_status ?? 200, body: record.response_body };
    return { status: 409, body: envelope(requestId, { code: 409, subCode: 0, description: 'enrollment in progress or interrupted' }) };
  }

  private breach(rows: Array<{ kind: 'ssn' | 'phone'; active: number; lifetime: number }>): keyof typeof ERROR_CATALOGUE | null {
    for (const kind of ['ssn', 'phone'] as const) {
      const row = rows.find((r) => r.kind === kind);
      if (!row) continue;
      const [active, lifetime] = LIMITS[kind];
      if (row.active >= active) return kind === 'ssn' ? 'ACTIVE_SSN_LIMIT' : 'ACTIVE_PHONE_LIMIT';
      if (row.lifetime >= lifetime) return kind === 'ssn' ? 'LIFETIME_SSN_LIMIT' : 'LIFETIME_PHONE_LIMIT';
    }
    return null;
  }

  /** `v1.<kid>.<iv>.<ciphertext+tag>`, AES-256-GCM with the column as additional data (FieldCipher). */
  private encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.dataKey, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${this.keys.dataKeyId}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  /** Keyed HMAC-SHA256 of the normalised value (BlindIndex). */
  private blindIndex(kind: 'ssn' | 'phone', value: string): string {
    const normalized = value.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
    return createHmac('sha256', this.keys.blindIndexKey).update(`${kind}:${normalized}`).digest('base64url');
  }
}

/** 64-bit advisory lock keys (sha-256, first 8 bytes, signed), deduplicated and sorted (LockService). */
function orderedLockKeys(names: readonly string[]): string[] {
  const keys = [...new Set(names.map((name) => createHash('sha256').update(name).digest().readBigInt64BE(0)))];
  return keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);
}

/** The transaction-scoped advisory locks of `names`, in key order, as one select (the (c) baselines' lock statement). */
export function advisoryXactLocks(names: readonly string[]): string {
  return `select ${orderedLockKeys(names)
    .map((key) => `pg_advisory_xact_lock(${key})`)
    .join(', ')}`;
}
