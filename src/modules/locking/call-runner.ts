import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ClsService } from 'nestjs-cls';
import { DataSource, EntityManager } from 'typeorm';
import type { Principal } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import type { Client } from 'pg';
import type { WriteBatch } from '../../infrastructure/database/write-batch';
import type { RequestBytes } from '../../common/context/request-bytes';
import { PayloadFingerprint } from '../../infrastructure/crypto/payload-fingerprint';
import { IdempotencyKey, IdempotencyRecord, IdempotencyStore } from '../idempotency/idempotency.store';
import type { StoredLookup } from '../idempotency/stored-lookup';
import { CallConnection } from '../../infrastructure/database/call-connection';
import { CallAnswer, CallOutcome, isFinal } from './call-outcome';
import { LockService } from '../../infrastructure/database/lock.service';
import { PartnerInFlight } from '../../infrastructure/database/partner-in-flight';

/** A state-changing call whose requestId is an idempotency key (per partner and program). */
export interface IdempotentCall {
  key: IdempotencyKey;
  /** Prefixes the fingerprint: the same requestId in another operation is another payload. */
  operation: string;
  /** The validated, decrypted payload; its canonical form is the fingerprint. */
  payload: unknown;
  /** The request's bytes as they arrived: their digest is stored with a final answer, for the replay interceptor. */
  bytes: RequestBytes;
  /**
   * The requestId's record as the replay interceptor read it for this request (no lock, after the
   * guard): the stored-answer look-up, so the runner does not read it again. Without it, the runner reads.
   */
  lookedUp?: StoredLookup;
  /** Lock names (LockNames), taken sorted in one round trip; computed only when the call gets that far (not for a replay). */
  locks: () => readonly string[];
  /** Time-dependent checks, run only on a first attempt and before any lock (CONTRACT section 6), on the call's connection. */
  firstAttempt?: (manager: EntityManager) => Promise<void> | void;
  /**
   * The use case, on the call's connection (`call`, handed to whatever reads or writes under the
   * locks); `resumed` when this requestId was seen before without a final answer. Writes it adds
   * to `batch` (the call's) are sent with the stored answer, in one statement, with the COMMIT.
   */
  work: (run: { resumed: boolean; call: CallConnection; batch: WriteBatch }) => Promise<CallOutcome<object>>;
  /**
   * The text the HTTP edge answers for an outcome (its envelope: `outcomeText`, given by the
   * controller). The runner stores it with a final answer before COMMIT, so a replay sends the same bytes.
   */
  render: (outcome: CallOutcome<object>) => string;
}

/**
 * The one place that orders a state-changing call (ARCHITECTURE.md): stored-answer replay (one
 * read, no lock: the replay interceptor's when the call brings it) → the call's locks (sorted, one round trip, LOCK_WAIT_MS) → authoritative
 * idempotency check (replay / 422 / resume) → the use case in the call's transaction → the answer
 * stored when final → one COMMIT. Use cases call it explicitly and declare their locks; it returns
 * the outcome with the text the controller rendered for it, and the controller sends it (`sentAnswer`).
 */
@Injectable()
export class CallRunner {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly locks: LockService,
    private readonly store: IdempotencyStore,
    private readonly cls: ClsService,
    private readonly fingerprints: PayloadFingerprint,
    private readonly inFlight: PartnerInFlight,
  ) {}

  /**
   * A call with locks and no idempotency key (user update, ITIN, care): BEGIN with the locks, the
   * work on the call's connection (handed to it: a statement on another connection would not run
   * under the locks), COMMIT.
   */
  locked<T>(lockNames: readonly string[], work: (call: CallConnection) => Promise<T>): Promise<T> {
    return this.withConnection(lockNames, async () => null, work);
  }

  async idempotent(call: IdempotentCall): Promise<CallAnswer> {
    const fingerprint = this.fingerprints.of(call.operation, call.payload);
    const samePayload = (record: IdempotencyRecord) => this.fingerprints.matches(record.fingerprint, call.operation, call.payload, fingerprint);
    const beforeLocks = async (manager: EntityManager): Promise<CallAnswer | null> => {
      const seen = call.lookedUp?.record !== undefined ? call.lookedUp.record : await this.store.find(call.key, manager);
      if (seen) return replayOf(seen, samePayload(seen));
      await call.firstAttempt?.(manager);
      return null;
    };
    const admitted = call.lookedUp !== undefined;
    return this.withConnection(
      call.locks,
      beforeLocks,
      async (connection) => {
        const existing = await this.store.claim(connection, call.key, call.operation, fingerprint);
        const replay = existing ? replayOf(existing, samePayload(existing)) : null;
        if (replay) return replay;
        const outcome = await call.work({ resumed: existing !== null, call: connection, batch: connection.batch });
        // The text is fixed before COMMIT: a final answer is stored with the call's rows, and the same bytes are sent.
        const body = call.render(outcome);
        if (isFinal(outcome))
          this.store.stageAnswer(connection.batch, call.key, { status: 200, body, requestDigest: this.fingerprints.ofBytes(call.operation, call.bytes) });
        return { replayed: false, outcome, body };
      },
      admitted,
    );
  }

  /**
   * The partner's call is admitted under its in-flight cap (else 503/503/3; PartnerInFlight), unless
   * the replay interceptor admitted it before its read, then runs on its connection.
   */
  private async withConnection<T>(
    lockNames: readonly string[] | (() => readonly string[]),
    beforeLocks: (manager: EntityManager) => Promise<T | null>,
    work: (connection: CallConnection) => Promise<T>,
    admitted = false,
  ): Promise<T> {
    const partnerId = admitted || !this.cls.isActive() ? undefined : (this.cls.get('principal') as Principal | undefined)?.partner.partnerId;
    const leave = partnerId === undefined ? undefined : this.inFlight.enter(partnerId);
    try {
      return await this.onConnection(lockNames, beforeLocks, work);
    } finally {
      leave?.();
    }
  }

  /**
   * One pooled connection for the whole call (a call never holds one while queueing for another):
   * `beforeLocks` reads on it without a transaction and may answer at once (a replay); otherwise
   * BEGIN with the locks (sent with the work's first statement), the work, its batched writes with
   * COMMIT; on failure, ROLLBACK, and a lock that waited too long answers 503/503/1 whichever
   * statement saw it. The connection goes back to the pool either way (CallConnection.release).
   */
  private async onConnection<T>(
    lockNames: readonly string[] | (() => readonly string[]),
    beforeLocks: (manager: EntityManager) => Promise<T | null>,
    work: (connection: CallConnection) => Promise<T>,
  ): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    const connection = new CallConnection(runner, (await runner.connect()) as Client, this.locks, lockNames);
    let failed = true;
    try {
      const early = await beforeLocks(connection.manager);
      if (early !== null) {
        failed = false;
        return early;
      }
      connection.begin();
      let result: T;
      try {
        result = await work(connection);
        await connection.opened();
        await connection.commit();
      } catch (error) {
        throw await connection.failureOf(error);
      }
      failed = false;
      return result;
    } finally {
      await connection.release(failed);
    }
  }
}

/** The stored answer to replay, a 422 for another payload, or null when the call must run. */
function replayOf(record: IdempotencyRecord, samePayload: boolean): CallAnswer | null {
  if (!samePayload) throw new DomainError('IDEMPOTENCY_PAYLOAD_MISMATCH');
  if (record.responseBody === null) return null;
  return { replayed: true, body: record.responseBody };
}
