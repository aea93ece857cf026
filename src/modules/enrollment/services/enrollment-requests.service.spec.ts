import type { DataSource, EntityManager } from 'typeorm';
import type { Principal } from '../../../common/context/request-context';
import { DomainError } from '../../../common/errors/domain-error';
import type { LockService } from '../../../infrastructure/database/lock.service';
import type { IdempotencyStatus, IdempotencyStore } from '../../idempotency/idempotency.store';
import type { EnrollmentProgressRepository } from '../repositories/enrollment-progress.repository';
import { mockOf } from '../../../../test/support/mock-of';
import { ENROLLMENT_OPERATION } from './enrollment-points';
import { EnrollmentRequestsService } from './enrollment-requests.service';

const CREATED = new Date('2026-11-26T10:00:00.000Z');
const ANSWER = '{"requestId":"req-1","responseDetails":[{"code":0,"subCode":0,"description":"Success"}]}';

function record(responseBody: string | null): IdempotencyStatus {
  return {
    fingerprint: 'f',
    responseStatus: responseBody ? 200 : null,
    responseBody,
    requestDigest: null,
    operation: ENROLLMENT_OPERATION,
    createdAt: CREATED,
    updatedAt: CREATED,
  };
}

/**
 * What a request status reads is two statements, the stored answer and the requestId's lock, and a
 * call may commit between them: these cases are that race, which an e2e test can only hit by chance.
 */
describe('EnrollmentRequestsService.status', () => {
  const principal = { partner: { partnerId: 'acme' } } as Principal;
  let status: jest.Mock;
  let heldSince: jest.Mock;
  let stateByRequest: jest.Mock;
  let sut: EnrollmentRequestsService;

  beforeEach(() => {
    status = jest.fn();
    heldSince = jest.fn().mockResolvedValue(null);
    stateByRequest = jest.fn().mockResolvedValue(null);
    sut = new EnrollmentRequestsService(
      mockOf<DataSource>({ manager: mockOf<EntityManager>({}) }),
      mockOf<IdempotencyStore>({ status }),
      mockOf<EnrollmentProgressRepository>({ stateByRequest }),
      mockOf<LockService>({ heldSince }),
    );
  });

  it('a first attempt that commits between the two reads is completed with its answer, not unknown (404)', async () => {
    status.mockResolvedValueOnce(null).mockResolvedValueOnce(record(ANSWER));
    await expect(sut.status(principal, 'sandbox', 'req-1')).resolves.toMatchObject({ request: { state: 'completed' }, answer: JSON.parse(ANSWER) });
  });

  it('a resumed call that stores its answer between the two reads is completed with that answer', async () => {
    status.mockResolvedValueOnce(record(null)).mockResolvedValueOnce(record(ANSWER));
    await expect(sut.status(principal, 'sandbox', 'req-1')).resolves.toMatchObject({ request: { state: 'completed' }, answer: JSON.parse(ANSWER) });
  });

  it('while the lock is held, a call without a stored answer is inProgress, read once', async () => {
    status.mockResolvedValue(null);
    heldSince.mockResolvedValue(CREATED);
    await expect(sut.status(principal, 'sandbox', 'req-1')).resolves.toMatchObject({ request: { state: 'inProgress' }, answer: null });
    expect(status).toHaveBeenCalledTimes(1);
  });

  it('no record and no call running, on both reads: unknown (404/10/0)', async () => {
    status.mockResolvedValue(null);
    await expect(sut.status(principal, 'sandbox', 'req-1')).rejects.toEqual(new DomainError('REQUEST_NOT_FOUND'));
  });
});
