import type { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../../../config/app-config';
import type { JobQueue } from '../../../infrastructure/queue/job-queue';
import type { Account, PaymentInstrument } from '../../accounts/account.types';
import type { AccountLimitsService } from '../../accounts/services/account-limits.service';
import type { AccountsService } from '../../accounts/services/accounts.service';
import type { PaymentInstrumentService } from '../../accounts/services/payment-instrument.service';
import type { CareAuditService } from '../../audit/care-audit.service';
import type { LifecycleWriter } from '../../lifecycle/lifecycle.writer';
import type { CareActionRunner } from './care-action-runner';
import type { CardProcessor } from './card-processor';
import { mockOf } from '../../../../test/support/mock-of';
import { CARD_UNBLOCK_JOB, CardUnblockService } from './card-unblock.service';

const DELAYS = [60_000, 240_000, 540_000];
const WINDOW = DELAYS.reduce((a, b) => a + b, 0);

function account(overrides: Partial<Account> = {}): Account {
  return {
    id: 'acc-1',
    partnerId: 'acme',
    programCode: 'sandbox',
    accountType: 'consumer',
    status: 'normal',
    statusReason: null,
    kycPendingGate: 'none',
    accountCycleDay: 5,
    currency: 'USD',
    identityKind: 'ssn',
    encryptedAccountDataEnc: null,
    requestId: 'req-1',
    createdAt: new Date(0),
    activatedAt: new Date(0),
    closedAt: null,
    updatedAt: new Date(0),
    version: 1,
    restoreStatus: null,
    restoreStatusReason: null,
    unblockRunId: 'run-1',
    unblockAttempt: 0,
    ...overrides,
  };
}

const careLocked = (a: Account): Account => ({
  ...a,
  status: 'locked',
  statusReason: 'careLock',
  restoreStatus: a.status,
  restoreStatusReason: a.statusReason,
});
const blockedCard = mockOf<PaymentInstrument>({ id: 'card-1', status: 'blocked' });

/**
 * The unblock run's mechanics around the processor call, which happens outside any transaction:
 * what each attempt does with the account it finds under its row lock before and after the call.
 */
describe(CardUnblockService.name, () => {
  let dataSource: jest.Mocked<DataSource>;
  let accounts: jest.Mocked<AccountsService>;
  let jobs: jest.Mocked<JobQueue>;
  let audit: jest.Mocked<CareAuditService>;
  let processor: jest.Mocked<CardProcessor>;
  let sut: CardUnblockService;
  const manager = {} as EntityManager;

  /** The accounts the attempt's row locks return, in order (before the processor call, after it). */
  function finds(...found: Account[]): void {
    for (const a of found) accounts.lockForUpdate.mockResolvedValueOnce(a);
  }

  const actions = () => audit.record.mock.calls.map(([, entry]) => entry.action);
  const job = (attempt: number, deadline?: number) => ({
    accountId: 'acc-1',
    runId: 'run-1',
    attempt,
    sandboxFailures: 0,
    ...(deadline === undefined ? {} : { deadline }),
  });

  beforeEach(() => {
    dataSource = mockOf<DataSource>({ transaction: jest.fn() });
    dataSource.transaction.mockImplementation(((work: (m: EntityManager) => Promise<unknown>) => work(manager)) as DataSource['transaction']);
    accounts = mockOf<AccountsService>({ lockForUpdate: jest.fn() });
    jobs = mockOf<JobQueue>({ send: jest.fn().mockResolvedValue(undefined) });
    audit = mockOf<CareAuditService>({ record: jest.fn().mockResolvedValue(undefined) });
    processor = mockOf<CardProcessor>({ unblock: jest.fn().mockResolvedValue(true) });
    sut = new CardUnblockService(
      dataSource,
      mockOf<AppConfig>({ env: mockOf<AppConfig['env']>({ unblockRetryDelaysMs: DELAYS }) }),
      jobs,
      mockOf<CareActionRunner>({
        snapshot: jest.fn().mockResolvedValue({ status: 'normal', statusReason: null, kycPendingGate: 'none', paymentInstruments: [] }),
      }),
      accounts,
      mockOf<PaymentInstrumentService>({ listFor: jest.fn().mockResolvedValue([blockedCard]) }),
      mockOf<LifecycleWriter>({ apply: jest.fn().mockImplementation((_m: EntityManager, a: Account) => Promise.resolve({ account: a, issued: [] })) }),
      audit,
      processor,
      mockOf<AccountLimitsService>({}),
    );
  });

  it('a care lock that lands while the processor is called: the attempt is sent again (it used to end the run silently, card blocked)', async () => {
    const live = account();
    finds(live, careLocked(live));
    await sut.attempt(job(1, Date.now() + WINDOW));
    expect(processor.unblock).toHaveBeenCalledTimes(1);
    expect(actions()).toEqual([]);
    expect(jobs.send).toHaveBeenCalledWith(CARD_UNBLOCK_JOB, job(1, expect.any(Number)), { startAfterMs: DELAYS[0] }, manager);
  });

  it('a care lock that lands while the processor is called, at or past the window: the run ends as exhausted', async () => {
    const live = account();
    finds(live, careLocked(live));
    // Picked up just after the window's end (the queue's poll): it tries; the lock then holds past the end.
    await sut.attempt(job(3, Date.now() - 1_000));
    expect(jobs.send).not.toHaveBeenCalled();
    expect(actions()).toEqual(['cardUnblock.exhausted']);
  });

  it('an attempt picked up well past its window (the service was down, the queue behind) ends the run without calling the processor', async () => {
    finds(account());
    await sut.attempt(job(2, Date.now() - 60_000));
    expect(processor.unblock).not.toHaveBeenCalled();
    expect(actions()).toEqual(['cardUnblock.exhausted']);
    expect(jobs.send).not.toHaveBeenCalled();
  });

  it('an attempt picked up just after the window (the queue polls) still calls the processor', async () => {
    const live = account();
    finds(live, live);
    await sut.attempt(job(3, Date.now() - 1_000));
    expect(processor.unblock).toHaveBeenCalledTimes(1);
    expect(actions()).toEqual(['cardUnblock.succeeded']);
  });

  it('a failure at or past the window with retries left ends the run: no retry is due after it', async () => {
    processor.unblock.mockResolvedValue(false);
    const live = account();
    finds(live, live);
    await sut.attempt(job(1, Date.now() - 1_000));
    expect(actions()).toEqual(['cardUnblock.exhausted']);
    expect(jobs.send).not.toHaveBeenCalled();
  });

  it('a failure inside the window schedules the next retry at its delay, cut to the window’s end', async () => {
    processor.unblock.mockResolvedValue(false);
    const live = account();
    finds(live, live);
    await sut.attempt(job(1, Date.now() + 100_000));
    expect(actions()).toEqual(['cardUnblock.failed']);
    const [, data, options] = jobs.send.mock.calls[0] ?? [];
    expect(data).toMatchObject({ attempt: 2 });
    expect(options?.startAfterMs).toBeGreaterThan(99_000);
    expect(options?.startAfterMs).toBeLessThanOrEqual(100_000);
  });

  it('a job sent before runs carried their window keeps the old behaviour: no deadline', async () => {
    processor.unblock.mockResolvedValue(false);
    const live = account();
    finds(live, live);
    await sut.attempt(job(1));
    expect(actions()).toEqual(['cardUnblock.failed']);
    expect(jobs.send.mock.calls[0]?.[2]).toMatchObject({ startAfterMs: DELAYS[1] });
  });
});
