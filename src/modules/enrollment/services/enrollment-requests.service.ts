import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Principal } from '../../../common/context/request-context';
import { REQUEST_ID_PATTERN } from '../../../common/context/request-context';
import { DomainError } from '../../../common/errors/domain-error';
import { IdempotencyKey, IdempotencyStatus, IdempotencyStore } from '../../idempotency/idempotency.store';
import { LockNames, LockService } from '../../../infrastructure/database/lock.service';
import { EnrollmentProgressRepository } from '../repositories/enrollment-progress.repository';
import { ENROLLMENT_OPERATION } from './enrollment-points';

export type RequestState = 'inProgress' | 'completed' | 'declined' | 'held' | 'incomplete';

export interface RequestStatus {
  request: { requestId: string; state: RequestState; createdDateTime: string; updatedDateTime: string };
  answer: object | null;
}

/**
 * `GET .../enrollments/requests/{requestId}` (CONTRACT section 11): what happened to a requestId,
 * read without a lock from what the CallRunner and the enrollment already record: the stored
 * answer (completed or declined), the requestId's lock held right now (inProgress, since its holder's
 * transaction began), the recovery
 * point and account of an enrollment without a final answer (held for OFAC review, or incomplete).
 */
@Injectable()
export class EnrollmentRequestsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: IdempotencyStore,
    private readonly progress: EnrollmentProgressRepository,
    private readonly locks: LockService,
  ) {}

  async status(principal: Principal, programCode: string, requestId: string): Promise<RequestStatus> {
    if (!REQUEST_ID_PATTERN.test(requestId)) throw new DomainError('REQUEST_NOT_FOUND');
    // The key carries the partner: another partner's requestId is an unknown one.
    const key: IdempotencyKey = { partnerId: principal.partner.partnerId, programCode, requestId };
    const manager = this.dataSource.manager;
    let record = await this.enrollmentRecord(key, manager);
    if (!record?.responseBody) {
      const runningSince = await this.locks.heldSince(manager, LockNames.requestId(key.partnerId, programCode, requestId));
      if (runningSince === null) {
        // No call holds the requestId now. One may have committed (and let go of its lock) between
        // the two reads: what it committed is visible now, so the record is read again.
        record = await this.enrollmentRecord(key, manager);
      }
      if (!record?.responseBody) return this.unanswered(key, record, runningSince);
    }
    const answer = JSON.parse(record.responseBody) as { responseDetails?: Array<{ code: number }> };
    const state: RequestState = answer.responseDetails?.[0]?.code === 0 ? 'completed' : 'declined';
    return { request: view(requestId, state, record.createdAt, record.updatedAt), answer };
  }

  /** The requestId's record; another operation's (a requestId is the enrollment's only) is an unknown one. */
  private async enrollmentRecord(key: IdempotencyKey, manager: EntityManager): Promise<IdempotencyStatus | null> {
    const record = await this.store.status(key, manager);
    if (record && record.operation !== ENROLLMENT_OPERATION) throw new DomainError('REQUEST_NOT_FOUND');
    return record;
  }

  /** A requestId without a final answer: running now, held, incomplete, or unknown. */
  private async unanswered(key: IdempotencyKey, record: IdempotencyStatus | null, runningSince: Date | null): Promise<RequestStatus> {
    const { requestId } = key;
    const manager = this.dataSource.manager;
    const running = runningSince !== null;
    if (!record) {
      // A first attempt in its one transaction has committed nothing yet; only its lock shows it,
      // and when its transaction began: the time its record will carry as created once committed.
      if (running) return { request: view(requestId, 'inProgress', runningSince, runningSince), answer: null };
      throw new DomainError('REQUEST_NOT_FOUND');
    }
    const enrollment = await this.progress.stateByRequest(manager, key);
    const updatedAt = enrollment && enrollment.updatedAt > record.updatedAt ? enrollment.updatedAt : record.updatedAt;
    return { request: view(requestId, this.stateOf(running, enrollment), record.createdAt, updatedAt), answer: null };
  }

  private stateOf(running: boolean, enrollment: { statusReason: string | null } | null): RequestState {
    if (running) return 'inProgress';
    if (enrollment?.statusReason === 'ofacReview') return 'held';
    // Stopped short, or finished without its answer stored (interrupted in between): completed means
    // a final answer is stored (CONTRACT section 11), and here the identical retry stores it. Care's
    // OFAC clearance finishes and stores in one transaction, so it is never seen in between.
    return 'incomplete';
  }
}

function view(requestId: string, state: RequestState, createdAt: Date, updatedAt: Date): RequestStatus['request'] {
  return { requestId, state, createdDateTime: new Date(createdAt).toISOString(), updatedDateTime: new Date(updatedAt).toISOString() };
}
