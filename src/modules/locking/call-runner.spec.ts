import type { ClsService } from 'nestjs-cls';
import type { Client, QueryConfig } from 'pg';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { DomainError } from '../../common/errors/domain-error';
import type { PayloadFingerprint } from '../../infrastructure/crypto/payload-fingerprint';
import type { LockService } from '../../infrastructure/database/lock.service';
import type { WriteBatch } from '../../infrastructure/database/write-batch';
import type { CallConnection } from '../../infrastructure/database/call-connection';
import type { IdempotencyKey, IdempotencyRecord, IdempotencyStore } from '../idempotency/idempotency.store';
import { CallRunner, IdempotentCall } from './call-runner';
import type { PartnerInFlight } from '../../infrastructure/database/partner-in-flight';
import type { RequestBytes } from '../../common/context/request-bytes';
import { CallOutcome, Outcome } from './call-outcome';
import { outcomeText } from './call-answer';
import { mockOf } from '../../../test/support/mock-of';

const KEY = { partnerId: 'acme', programCode: 'sandbox', requestId: 'r-1' };
const LOCK_SQL = "select set_config('lock_timeout', '100', true), pg_advisory_xact_lock($1::bigint)";
const ABORTED = Object.assign(new Error('current transaction is aborted'), { code: '25P02' });
const STORED: IdempotencyRecord = { fingerprint: 'fp', responseStatus: 200, responseBody: '{"stored":true}', requestDigest: null };

interface Setup {
  /** The calling partner in the request's context (none: outside a request). */
  partnerId?: string;
  stored?: IdempotencyRecord | null;
  claimed?: IdempotencyRecord | null;
  failing?: (text: string) => Error | undefined;
}

/** The runner over mocks that write every step, in order, to `steps`. */
function harness(setup: Setup = {}) {
  const steps: string[] = [];
  let aborted = false;
  // The session's pg client: every statement of the call, in the order it is issued.
  const client = mockOf<Client>({
    query: jest.fn(async (config: string | QueryConfig) => {
      const text = typeof config === 'string' ? config : config.text;
      steps.push(text === LOCK_SQL ? 'locks' : text.startsWith('with') || text.startsWith('insert') ? `batch: ${text}` : text);
      // As PostgreSQL: after a failed statement, the transaction runs nothing but its end.
      const error = aborted && text !== 'rollback' ? ABORTED : setup.failing?.(text);
      if (error) {
        aborted = true;
        throw error;
      }
      return { rows: [] };
    }) as never,
  });
  const manager = mockOf<EntityManager>({});
  const runner = mockOf<QueryRunner>({
    manager,
    connect: jest.fn(async () => client),
    release: jest.fn(async () => {
      steps.push('release');
    }),
  });
  Object.assign(manager, { queryRunner: runner });
  const dataSource = mockOf<DataSource>({ createQueryRunner: jest.fn(() => runner) });
  const locks = mockOf<LockService>({
    lockStatement: jest.fn((_names: readonly string[]) => ({ text: LOCK_SQL, values: ['1'] })),
    failureOf: jest.fn((error: unknown) => ((error as { code?: string }).code === '55P03' ? new DomainError('LOCK_TIMEOUT') : null)),
  });
  const store = mockOf<IdempotencyStore>({
    find: jest.fn(async (_key: IdempotencyKey, _manager?: EntityManager) => {
      steps.push('replay look-up');
      return setup.stored ?? null;
    }),
    claim: jest.fn(async (call: CallConnection, _key: IdempotencyKey, _operation: string, _fingerprint: string) => {
      await call.rows('claim', []);
      return setup.claimed ?? null;
    }),
    stageAnswer: jest.fn((batch: WriteBatch, _key: IdempotencyKey, _answer: { status: number; body: string; requestDigest: string | null }) => {
      batch.write('update idempotency_keys set response_body = $1', ['answer']);
    }),
  });
  const cls = mockOf<ClsService>({
    isActive: jest.fn(() => setup.partnerId !== undefined),
    get: jest.fn((_key?: string | symbol) => ({ partner: { partnerId: setup.partnerId } })) as never,
  });
  const leave = jest.fn(() => {
    steps.push('leave');
  });
  const inFlight = mockOf<PartnerInFlight>({
    enter: jest.fn((partnerId: string) => {
      steps.push(`enter ${partnerId}`);
      return leave;
    }),
  });
  const fingerprints = mockOf<PayloadFingerprint>({
    of: jest.fn((_operation: string, _body: unknown) => 'fp'),
    ofBytes: jest.fn((_operation: string, _bytes: RequestBytes): string | null => 'rd'),
    matches: jest.fn((stored: string, _operation: string, _payload: unknown, _computed?: string) => stored === 'fp'),
  });
  const lockNames = jest.fn(() => ['requestId:acme:sandbox:r-1']);
  const sut = new CallRunner(dataSource, locks, store, cls, fingerprints, inFlight);
  const call = (outcome: () => Promise<CallOutcome<object>>): IdempotentCall => ({
    key: KEY,
    operation: 'enroll',
    payload: { a: 1 },
    bytes: { contentType: 'application/json', raw: Buffer.from('{"a":1}') },
    locks: lockNames,
    firstAttempt: async () => {
      steps.push('first-attempt checks');
    },
    work: async ({ resumed, call: connection, batch }) => {
      steps.push(resumed ? 'work (resumed)' : 'work');
      expect(connection.manager).toBe(manager);
      batch.write('insert into accounts (id) values ($1)', ['a-1']);
      return outcome();
    },
    // The edge's envelope (call-answer.ts's outcomeText, as the controller gives it).
    render: (outcome) => outcomeText(KEY.requestId, outcome, 'http://enrollment.test'),
  });
  return { sut, steps, store, locks, lockNames, runner, call, inFlight };
}

describe(CallRunner.name, () => {
  describe('idempotent', () => {
    it('a first attempt: replay look-up → first-attempt checks → BEGIN with the locks → claim → work → its rows and the stored answer in one statement → COMMIT → release', async () => {
      const { sut, steps, store, call } = harness();
      const answer = await sut.idempotent(call(async () => Outcome.completed({ id: 'a-1' })));
      expect(steps).toEqual([
        'replay look-up',
        'first-attempt checks',
        'begin',
        'locks',
        'claim',
        'work',
        'batch: with w0 as (insert into accounts (id) values ($1)) update idempotency_keys set response_body = $2',
        'commit',
        'release',
      ]);
      expect(store.stageAnswer).toHaveBeenCalledWith(expect.anything(), KEY, { status: 200, body: answer.body, requestDigest: 'rd' });
      expect(JSON.parse(answer.body)).toMatchObject({ requestId: 'r-1', id: 'a-1' });
      expect(answer).toMatchObject({ replayed: false, outcome: { kind: 'completed', data: { id: 'a-1' } } });
    });

    it('a stored final answer for the same payload is replayed before any lock (the lock names are never computed)', async () => {
      const { sut, steps, lockNames, call } = harness({ stored: STORED });
      const answer = await sut.idempotent(call(async () => Outcome.completed({})));
      expect(answer).toEqual({ replayed: true, body: STORED.responseBody });
      expect(steps).toEqual(['replay look-up', 'release']);
      expect(lockNames).not.toHaveBeenCalled();
    });

    it("takes the replay interceptor's look-up as the stored-answer look-up: the record is not read twice", async () => {
      const { sut, steps, store, call } = harness({ stored: STORED });
      await sut.idempotent({ ...call(async () => Outcome.completed({ id: 'a-1' })), lookedUp: { record: null } });
      expect(store.find).not.toHaveBeenCalled();
      expect(steps.slice(0, 4)).toEqual(['first-attempt checks', 'begin', 'locks', 'claim']);
    });

    it('replays the final answer the replay interceptor read for a payload equal in another form, with no read and no lock', async () => {
      const { sut, steps, store, lockNames, call } = harness();
      const answer = await sut.idempotent({ ...call(async () => Outcome.completed({})), lookedUp: { record: STORED } });
      expect(answer).toEqual({ replayed: true, body: STORED.responseBody });
      expect(store.find).not.toHaveBeenCalled();
      expect(steps).toEqual(['release']);
      expect(lockNames).not.toHaveBeenCalled();
    });

    it('another payload under a known requestId is refused 422 before any lock', async () => {
      const { sut, steps, call } = harness({ stored: { ...STORED, fingerprint: 'other' } });
      await expect(sut.idempotent(call(async () => Outcome.completed({})))).rejects.toMatchObject({ key: 'IDEMPOTENCY_PAYLOAD_MISMATCH' });
      expect(steps).toEqual(['replay look-up', 'release']);
    });

    it('an answer stored meanwhile is found under the locks, replayed, and nothing is written', async () => {
      const { sut, steps, call } = harness({ claimed: STORED });
      const answer = await sut.idempotent(call(async () => Outcome.completed({})));
      expect(answer).toEqual({ replayed: true, body: STORED.responseBody });
      expect(steps).toEqual(['replay look-up', 'first-attempt checks', 'begin', 'locks', 'claim', 'commit', 'release']);
    });

    it('a requestId seen without a final answer resumes: the work runs, told so', async () => {
      const { sut, steps, call } = harness({ claimed: { ...STORED, responseStatus: null, responseBody: null } });
      await sut.idempotent(call(async () => Outcome.completed({})));
      expect(steps).toContain('work (resumed)');
    });

    it('an outcome that is not final (incomplete, held) is not stored', async () => {
      const { sut, steps, store, call } = harness();
      await sut.idempotent(call(async () => Outcome.incomplete({})));
      expect(store.stageAnswer).not.toHaveBeenCalled();
      expect(steps).toContain('batch: insert into accounts (id) values ($1)');
    });

    it('locks that waited past LOCK_WAIT_MS: 503/503/1, nothing claimed, the transaction rolled back, the connection released', async () => {
      const timeout = Object.assign(new Error('lock timeout'), { code: '55P03' });
      const { sut, steps, call } = harness({ failing: (text) => (text === LOCK_SQL ? timeout : undefined) });
      await expect(sut.idempotent(call(async () => Outcome.completed({})))).rejects.toMatchObject({ key: 'LOCK_TIMEOUT' });
      expect(steps).toEqual(['replay look-up', 'first-attempt checks', 'begin', 'locks', 'claim', 'rollback', 'release']);
    });

    it('a failing use case: its error, nothing stored, ROLLBACK, release', async () => {
      const failure = new DomainError('ACCOUNT_LOCKED');
      const { sut, steps, store, call } = harness();
      await expect(sut.idempotent(call(async () => Promise.reject(failure)))).rejects.toBe(failure);
      expect(store.stageAnswer).not.toHaveBeenCalled();
      expect(steps).toEqual(['replay look-up', 'first-attempt checks', 'begin', 'locks', 'claim', 'work', 'rollback', 'release']);
    });

    it('a failing COMMIT fails the call and the connection is still released', async () => {
      const { sut, steps, call } = harness({ failing: (text) => (text === 'commit' ? new Error('Connection terminated') : undefined) });
      await expect(sut.idempotent(call(async () => Outcome.completed({})))).rejects.toThrow('Connection terminated');
      expect(steps.slice(-3)).toEqual(['commit', 'rollback', 'release']);
    });
  });

  describe('locked', () => {
    it("hands the call's connection to the work between BEGIN with the locks and COMMIT", async () => {
      const { sut, steps, locks } = harness();
      const result = await sut.locked(['account:a'], async (call) => {
        await call.rows(call.inTransaction ? 'work in the transaction' : 'work outside', []);
        return 'done';
      });
      expect(result).toBe('done');
      expect(locks.lockStatement).toHaveBeenCalledWith(['account:a']);
      // The work's first statement goes with BEGIN and the locks (CallConnection).
      expect(steps).toEqual(['begin', 'locks', 'work in the transaction', 'commit', 'release']);
    });

    it("admits a partner's call under its in-flight cap before the connection, and lets it go after the release", async () => {
      const { sut, steps } = harness({ partnerId: 'acme' });
      await sut.locked(['account:a'], async (call) => call.rows('work', []));
      expect(steps).toEqual(['enter acme', 'begin', 'locks', 'work', 'commit', 'release', 'leave']);
    });

    it('lets the call go when the work fails too', async () => {
      const { sut, steps } = harness({ partnerId: 'acme', failing: (text) => (text === 'work' ? new Error('boom') : undefined) });
      await expect(sut.locked(['account:a'], async (call) => call.rows('work', []))).rejects.toThrow('boom');
      expect(steps.at(-1)).toBe('leave');
    });
  });

  describe('in-flight cap of an idempotent call', () => {
    it('admits the call itself when the replay interceptor did not (no look-up)', async () => {
      const { sut, steps, call } = harness({ partnerId: 'acme' });
      await sut.idempotent(call(async () => Outcome.completed({ id: 'a-1' })));
      expect(steps[0]).toBe('enter acme');
      expect(steps.at(-1)).toBe('leave');
    });

    it.each([
      ['a record it read', { record: null }],
      ['a read that failed', {}],
    ])('does not admit it again when the replay interceptor admitted it (%s)', async (_case, lookedUp) => {
      const { sut, inFlight, call } = harness({ partnerId: 'acme' });
      await sut.idempotent({ ...call(async () => Outcome.completed({ id: 'a-1' })), lookedUp });
      expect(inFlight.enter).not.toHaveBeenCalled();
    });

    it('reads the record for itself when the interceptor admitted the call but its read failed', async () => {
      const { sut, store, call } = harness({ partnerId: 'acme' });
      await sut.idempotent({ ...call(async () => Outcome.completed({ id: 'a-1' })), lookedUp: {} });
      expect(store.find).toHaveBeenCalledTimes(1);
    });
  });
});
