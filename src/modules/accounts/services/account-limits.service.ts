import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import { ErrorKey } from '../../../common/errors/error-catalogue';
import { AppConfig } from '../../../config/app-config';
import { LimitSet } from '../../../config/service-config';
import { BlindIndex } from '../../../infrastructure/crypto/field-cipher';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import { LockNames, LockService } from '../../../infrastructure/database/lock.service';
import { Account, AccountType } from '../entities/account.entity';
import { LimitKeyKind } from '../entities/account-limit-key.entity';
import { prepared } from '../../../infrastructure/database/prepared-statements';
import { queryRows } from '../../../infrastructure/database/pooled-read';

/** A value the limits count, in plaintext; only its blind index is stored or compared. */
export interface LimitKeyValue {
  kind: LimitKeyKind;
  value: string;
}

export interface LimitBreach {
  error: ErrorKey;
  kind: LimitKeyKind;
  scope: 'active' | 'lifetime';
  /** For an active-limit breach: the calling partner's most recent counted account of that key (DOB-match rule). */
  mostRecentAccountId: string | null;
}

export interface LimitCheck {
  programCode: string;
  /** Whose most recent active account a breach names: another partner's is never shown (CONTRACT section 3). */
  partnerId: string | null;
  accountType: AccountType;
  limits: LimitSet;
  keys: LimitKeyValue[];
  /** The account being changed (user update, ITIN): it never counts against itself. */
  excludeAccountId?: string;
}

/**
 * SERVICE.md's account limits, per program and account type, on SSN, ITIN and default phone.
 *
 * Which accounts count, exactly as SERVICE.md and CONTRACT section 6 define them:
 * - active: activated (its enrollment completed) and either normal or with a KYC gate open;
 * - lifetime: ever activated, closed ones included.
 * An enrollment held for OFAC review or short of its bill cycle counts toward neither; it is
 * counted again, under the keys' locks, when it completes (`recheckAccount`).
 */
export const LIMIT_COUNTING_RULE =
  'Active limits count the activated accounts of the key that are normal or have a KYC gate open; lifetime limits count every account ever activated, closed ones included, ' +
  'under every default phone it had once activated (a number a user update moved it away from still counts it). ' +
  'An enrollment held for OFAC review or short of its bill cycle counts toward neither until it completes, and is counted again when it does: ' +
  'if the key is full by then, the enrollment ends with the limit decline and its account is closed.';

/** The counting rule on one account, as the SQL below applies it (the statement counts in the database, under the keys' locks). */
export const COUNTS = {
  active: (a: Pick<Account, 'activatedAt' | 'status' | 'kycPendingGate'>): boolean =>
    a.activatedAt !== null && (a.status === 'normal' || a.kycPendingGate !== 'none'),
  lifetime: (a: Pick<Account, 'activatedAt'>): boolean => a.activatedAt !== null,
};
const ACTIVE = `a.activated_at is not null and (a.status = 'normal' or a.kyc_pending_gate <> 'none')`;
const EVER_ACTIVATED = 'a.activated_at is not null';

/** The limit count's text per count of keys, built once each. */
const LIMIT_COUNT_SQL = new Map<number, string>();

/**
 * Every key's counts in one statement, one lateral look-up per key: its index scan takes the key
 * from the outer row whatever the plan, so the generic plan of this prepared statement is as good
 * as a custom one. (A plain join left the key columns to a join filter over every key of the
 * program once the plan was generic, a cost that grew with the program's accounts.)
 *
 * The keys come as a VALUES list of `count` rows, one text per count of keys (a few), not as
 * `unnest` of two array parameters: the planner cannot know an array parameter's length in a
 * generic plan, estimated it far above the custom plan's two rows, and so kept planning a custom
 * plan on every call (docs/design-notes.md, "Prepared statements"). With the row count in the text
 * both plans cost the same and the generic one stays.
 * A key an account left (`retired_at`, a default phone changed) counts toward the lifetime limit
 * only: the account was activated with it.
 * `recent` is the partner's own most recent active account of the key ($4): another partner's is
 * never shown, and a caller told nothing when the most recent is someone else's could still infer
 * that another partner enrolled the person since.
 * Parameters: $1 program, $2 account type, $3 an account not counted, $4 the partner, then each key's kind and blind index.
 */
export function limitCountSql(count: number): string {
  const cached = LIMIT_COUNT_SQL.get(count);
  if (cached !== undefined) return cached;
  const keys = Array.from({ length: count }, (_, i) => `($${5 + 2 * i}::text, $${6 + 2 * i}::text)`).join(', ');
  const text = prepared(`select q.kind, q.bidx, c.active, c.lifetime, c.recent
   from (values ${keys}) as q(kind, bidx)
   cross join lateral (
     select count(a.id) filter (where k.retired_at is null and ${ACTIVE})::int as active,
            count(a.id) filter (where ${EVER_ACTIVATED})::int as lifetime,
            (array_agg(a.id order by a.created_at desc) filter (where k.retired_at is null and ${ACTIVE} and a.partner_id = $4::text))[1] as recent
       from account_limit_keys k
       join accounts a on a.id = k.account_id
      where k.program_code = $1 and k.account_type = $2 and k.key_kind = q.kind and k.key_bidx = q.bidx and k.account_id <> $3
   ) c`);
  LIMIT_COUNT_SQL.set(count, text);
  return text;
}

/** Counts of one key: accounts counted as active, ever activated, and the partner's most recent active one. */
export interface KeyCounts {
  active: number;
  lifetime: number;
  recent: string | null;
}

/**
 * Judges the counts against the program's limits: keys in SSN, ITIN, phone order, the active limit
 * before the lifetime one; a key is full when its count reached the limit. The first breach wins.
 */
export function judgeLimits(keys: ReadonlyArray<{ kind: LimitKeyKind; counts: KeyCounts }>, limits: LimitSet, accountType: AccountType): LimitBreach | null {
  for (const { kind, counts } of [...keys].sort((a, b) => ORDER[a.kind] - ORDER[b.kind])) {
    const [activeLimit, lifetimeLimit] = limits[kind];
    if (counts.active >= activeLimit) return { error: errorFor(kind, 'active', accountType), kind, scope: 'active', mostRecentAccountId: counts.recent };
    if (counts.lifetime >= lifetimeLimit) return { error: errorFor(kind, 'lifetime', accountType), kind, scope: 'lifetime', mostRecentAccountId: null };
  }
  return null;
}

const ORDER: Record<LimitKeyKind, number> = { ssn: 0, itin: 1, phone: 2 };

@Injectable()
export class AccountLimitsService {
  constructor(
    private readonly blindIndex: BlindIndex,
    private readonly locks: LockService,
    private readonly config: AppConfig,
  ) {}

  /** The lock names of the keys: an enrollment takes them with its other locks, in one round trip. */
  lockNames(programCode: string, keys: readonly LimitKeyValue[]): string[] {
    return keys.map((key) => LockNames.limitKey(programCode, key.kind, this.indexOf(key)));
  }

  /**
   * Takes transaction-scoped advisory locks on every key, then counts. The caller inserts the
   * account and its keys in the same transaction, so no concurrent call can count before it commits.
   */
  async lockAndCheck(manager: EntityManager, check: LimitCheck): Promise<LimitBreach | null> {
    await this.locks.lockInTransaction(manager, this.lockNames(check.programCode, check.keys));
    return this.check(manager, check);
  }

  /** Counts every key in one statement; the caller already holds the keys' locks in its transaction. */
  check(manager: EntityManager, check: LimitCheck): Promise<LimitBreach | null> {
    return this.count(
      manager,
      check,
      check.keys.map((key) => ({ kind: key.kind, bidx: this.indexOf(key) })),
    );
  }

  /**
   * An enrollment that completes after it was written (OFAC cleared, bill cycle retried) is counted
   * again: its own keys, locked in the caller's transaction, the account itself excluded.
   */
  async recheckAccount(
    manager: EntityManager,
    account: { id: string; partnerId: string; programCode: string; accountType: AccountType },
  ): Promise<LimitBreach | null> {
    return this.recount(manager, account, this.limitsOf(account), account.partnerId);
  }

  /**
   * An account about to count as active again (care's unlock, a fraud block removed: `patch` is the
   * change) is counted first, under its keys' locks, itself excluded: while it did not
   * count, another account of the same SSN, ITIN or phone may have been enrolled, and SERVICE.md's
   * active limits hold whatever happened meanwhile. A full key is that limit's refusal (2/60, 2/63),
   * and the caller's transaction changes nothing. Lifetime limits are not judged again: the
   * account was counted toward them when it was first activated.
   */
  async admitReturnToActive(
    manager: EntityManager,
    account: Pick<Account, 'id' | 'programCode' | 'accountType' | 'activatedAt' | 'status' | 'kycPendingGate'>,
    patch: Partial<Pick<Account, 'activatedAt' | 'status' | 'kycPendingGate'>>,
  ): Promise<void> {
    if (COUNTS.active(account) || !COUNTS.active({ ...account, ...patch })) return;
    const breach = await this.recount(manager, account, scoped(this.limitsOf(account), 'active'), null);
    if (breach) throw new DomainError(breach.error);
  }

  /** An existing account's own keys, locked in the caller's transaction and counted against `limits`, the account itself excluded. */
  private async recount(
    manager: EntityManager,
    account: { id: string; programCode: string; accountType: AccountType },
    limits: LimitSet,
    partnerId: string | null,
  ): Promise<LimitBreach | null> {
    const keys = await this.lockKeysOf(manager, account);
    return this.count(
      manager,
      { programCode: account.programCode, partnerId, accountType: account.accountType, limits, keys: [], excludeAccountId: account.id },
      keys,
    );
  }

  /** The limits of the account's program and type. */
  private limitsOf(account: { programCode: string; accountType: AccountType }): LimitSet {
    const program = this.config.service.programs.get(account.programCode);
    if (!program) throw new Error(`Program ${account.programCode} of account is not configured`);
    return program.limits[account.accountType];
  }

  /** Locks an account's current keys (take them before the account row, as enrollments do). */
  async lockKeysOf(manager: EntityManager, account: { id: string; programCode: string }): Promise<Array<{ kind: LimitKeyKind; bidx: string }>> {
    const keys = (await manager.query(`select key_kind as kind, key_bidx as bidx from account_limit_keys where account_id = $1 and retired_at is null`, [
      account.id,
    ])) as Array<{
      kind: LimitKeyKind;
      bidx: string;
    }>;
    await this.locks.lockInTransaction(
      manager,
      keys.map((key) => LockNames.limitKey(account.programCode, key.kind, key.bidx)),
    );
    return keys;
  }

  private async count(manager: EntityManager, check: LimitCheck, hashed: Array<{ kind: LimitKeyKind; bidx: string }>): Promise<LimitBreach | null> {
    if (hashed.length === 0) return null;
    const keys = [...hashed].sort((a, b) => ORDER[a.kind] - ORDER[b.kind]);
    const rows = await queryRows<{ kind: LimitKeyKind; bidx: string; active: number; lifetime: number; recent: string | null }>(
      manager,
      limitCountSql(keys.length),
      [
        check.programCode,
        check.accountType,
        check.excludeAccountId ?? '00000000-0000-0000-0000-000000000000',
        check.partnerId,
        ...keys.flatMap((k) => [k.kind, k.bidx]),
      ],
    );
    const counted = keys.map((key) => ({
      kind: key.kind,
      counts: rows.find((row) => row.kind === key.kind && row.bidx === key.bidx) ?? { active: 0, lifetime: 0, recent: null },
    }));
    return judgeLimits(counted, check.limits, check.accountType);
  }

  /** The keys of a new account, added to the caller's batch. */
  stage(batch: WriteBatch, account: { id: string; programCode: string; accountType: AccountType }, keys: readonly LimitKeyValue[]): void {
    batch.insert(
      'account_limit_keys',
      ['account_id', 'key_kind', 'key_bidx', 'program_code', 'account_type'],
      keys.map((key) => [account.id, key.kind, this.indexOf(key), account.programCode, account.accountType]),
    );
  }

  /**
   * A key an existing account takes on (default phone changed, ITIN added): checked against the limits
   * the account counts toward (COUNTS), the account itself excluded, then recorded; a breach is the
   * limit's decline. An active account is judged like an enrollment; a closed one, which counts
   * toward the lifetime limits only, by those alone; one never activated by none, until its
   * enrollment completes and `recheckAccount` counts its keys, this one included. (A locked account
   * never gets here: the ITIN and the user update refuse it first, 5/362; unlocked, it would count
   * as active again.)
   */
  async claimForAccount(
    manager: EntityManager,
    account: Pick<Account, 'id' | 'programCode' | 'accountType' | 'activatedAt' | 'status' | 'kycPendingGate'>,
    key: LimitKeyValue,
    batch: WriteBatch,
  ): Promise<void> {
    await this.locks.lockInTransaction(manager, this.lockNames(account.programCode, [key]));
    const limits = countedLimits(this.limitsOf(account), account);
    const breach = limits
      ? await this.check(manager, {
          programCode: account.programCode,
          partnerId: null,
          accountType: account.accountType,
          limits,
          keys: [key],
          excludeAccountId: account.id,
        })
      : null;
    if (breach) throw new DomainError(breach.error);
    // The records join the caller's batch (its other writes), under the key's lock taken above. The
    // key the account leaves (a default phone changed) stays counted toward the lifetime limits if the
    // account was ever activated (CONTRACT section 6), else it is forgotten; a key it comes back to is
    // current again.
    const bidx = this.indexOf(key);
    const leaving = 'account_id = $1 and key_kind = $2 and key_bidx <> $3 and retired_at is null';
    batch.write(
      COUNTS.lifetime(account) ? `update account_limit_keys set retired_at = now() where ${leaving}` : `delete from account_limit_keys where ${leaving}`,
      [account.id, key.kind, bidx],
    );
    batch.write(
      `insert into account_limit_keys (account_id, key_kind, key_bidx, program_code, account_type) values ($1, $2, $3, $4, $5)
       on conflict (account_id, key_kind, key_bidx) do update set retired_at = null`,
      [account.id, key.kind, bidx, account.programCode, account.accountType],
    );
  }

  private indexOf(key: LimitKeyValue): string {
    return this.blindIndex.of(key.kind, key.value);
  }
}

/** The limits an account is judged by when it takes on a key: those it counts toward (null: none). */
function countedLimits(limits: LimitSet, account: Pick<Account, 'activatedAt' | 'status' | 'kycPendingGate'>): LimitSet | null {
  if (COUNTS.active(account)) return limits;
  return COUNTS.lifetime(account) ? scoped(limits, 'lifetime') : null;
}

/** Only the active or only the lifetime limits of a set (the other unbounded). */
function scoped(limits: LimitSet, scope: 'active' | 'lifetime'): LimitSet {
  const only = ([active, lifetime]: readonly [number, number]): [number, number] =>
    scope === 'active' ? [active, Number.POSITIVE_INFINITY] : [Number.POSITIVE_INFINITY, lifetime];
  return { ssn: only(limits.ssn), itin: only(limits.itin), phone: only(limits.phone) };
}

function errorFor(kind: LimitKeyKind, scope: 'active' | 'lifetime', accountType: AccountType): ErrorKey {
  if (kind !== 'phone') return scope === 'active' ? 'ACTIVE_SSN_LIMIT' : 'LIFETIME_SSN_LIMIT';
  if (accountType === 'business') return scope === 'active' ? 'ACTIVE_PHONE_LIMIT_BUSINESS' : 'LIFETIME_PHONE_LIMIT_BUSINESS';
  return scope === 'active' ? 'ACTIVE_PHONE_LIMIT' : 'LIFETIME_PHONE_LIMIT';
}
