import { randomUUID } from 'node:crypto';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import { AppConfig } from '../../../config/app-config';
import { defineJob, deterministicJobId } from '../../../infrastructure/queue/job-definition';
import { JobQueue } from '../../../infrastructure/queue/job-queue';
import type { Account } from '../../accounts/account.types';
import { AccountLimitsService } from '../../accounts/services/account-limits.service';
import { AccountsService } from '../../accounts/services/accounts.service';
import { PaymentInstrumentService } from '../../accounts/services/payment-instrument.service';
import { CareAuditService } from '../../audit/care-audit.service';
import * as lifecycle from '../../lifecycle/account-lifecycle';
import { LifecycleWriter } from '../../lifecycle/lifecycle.writer';
import type { CallConnection } from '../../../infrastructure/database/call-connection';
import { CareActionRunner, CareActor } from './care-action-runner';
import { CardProcessor } from './card-processor';

interface UnblockJobData {
  accountId: string;
  runId: string;
  attempt: number;
  sandboxFailures: number;
  /** Epoch ms by which every try is due: the removal plus the delays' sum. Absent on jobs sent before it was carried: no window. */
  deadline?: number;
}

export const CARD_UNBLOCK_JOB = defineJob<UnblockJobData>({
  name: 'card-unblock',
  // Handler failures (database trouble) are retried quickly; a processor refusal is an attempt of the run.
  retryLimit: 5,
  retryDelaySeconds: 5,
  expireInSeconds: 60,
});

const SYSTEM_ACTOR = 'system:card-unblock';

/**
 * SERVICE.md's state table: when the fraud block is removed the account is healthy and normal
 * (status normal, statusReason null, kycPendingGate none; pending when its enrollment never
 * completed) but the card is still blocked; the unblock is retried by durable jobs, once per
 * UNBLOCK_RETRY_DELAYS_MS entry (default 1, 4 and 9 minutes apart: all within 15 minutes, the run's
 * window, which no retry is due past). If the last retry fails, or the window closes first (care's
 * lock found at its end, a failure at its end, the service down past it), the account gets kycPendingGate
 * manual and statusReason underReview, for care to finish by hand (`lifecycle.unblockStep`).
 */
@Injectable()
export class CardUnblockService implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly jobs: JobQueue,
    private readonly runner: CareActionRunner,
    private readonly accounts: AccountsService,
    private readonly instruments: PaymentInstrumentService,
    private readonly writer: LifecycleWriter,
    private readonly audit: CareAuditService,
    private readonly processor: CardProcessor,
    private readonly limits: AccountLimitsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.jobs.work(CARD_UNBLOCK_JOB, (data) => this.attempt(data));
  }

  /**
   * `requestedFailures`: the sandbox's `sandboxUnblockFailures`, the first N of the attempts to fail
   * (N ≥ 3: all of them); outside the sandbox accepted and ignored (CONTRACT sections 10 and 12).
   */
  removeFraudBlock(call: CallConnection, who: CareActor, accountId: string, requestedFailures: unknown): Promise<void> {
    const sandboxFailures = this.config.isSandbox ? sandboxUnblockFailures(requestedFailures) : 0;
    return this.runner.run(call, who, accountId, 'fraudBlock.remove', async (manager, account) => {
      const runId = randomUUID();
      // SERVICE.md: "healthy and normal", whatever the account was before the block (CONTRACT section 8);
      // refused (2/60, 2/63) when that would put its keys over their active limits (`admitReturnToActive`).
      const change = lifecycle.removeFraudBlock(account, runId);
      await this.limits.admitReturnToActive(manager, account, change.patch);
      await this.writer.apply(manager, account, change);
      const delays = this.config.env.unblockRetryDelaysMs;
      const deadline = Date.now() + delays.reduce((sum, delay) => sum + delay, 0);
      await this.schedule(manager, { accountId: account.id, runId, attempt: 1, sandboxFailures, deadline }, delays[0] ?? 0);
      return { unblockRunId: runId, sandboxUnblockFailures: sandboxFailures, retryDelaysMs: delays };
    });
  }

  /**
   * One retry of a run, in two transactions around the processor call (made outside any). Each reads
   * the account under its row lock and does what `lifecycle.unblockStep` decides: nothing for an
   * attempt already handled or a run superseded; care's lock (found before the call, or taken during
   * it) sends the attempt again, never past the run's window, or ends the run at the window's end:
   * dropped, the run would end with the card blocked on an account care had returned to normal, and
   * nothing left to unblock it.
   */
  async attempt(job: UnblockJobData): Promise<void> {
    const run: lifecycle.UnblockAttempt = { runId: job.runId, attempt: job.attempt, deadlineMs: job.deadline ?? Number.POSITIVE_INFINITY };
    const delays = this.config.env.unblockRetryDelaysMs;
    const blocked = await this.dataSource.transaction(async (manager) => {
      const account = await this.accounts.lockForUpdate(manager, job.accountId);
      const step = lifecycle.unblockStep(account, run, Date.now(), delays);
      if (step.step !== 'try') {
        await this.follow(manager, account, job, step, []);
        return null;
      }
      return (await this.instruments.listFor(manager, account.id)).filter((card) => card.status === 'blocked').map((card) => card.id);
    });
    if (blocked === null) return;
    const unblocked =
      blocked.length === 0 || (await this.processor.unblock({ paymentIdentifiers: blocked, attempt: job.attempt, sandboxFailures: job.sandboxFailures }));
    await this.dataSource.transaction(async (manager) => {
      const account = await this.accounts.lockForUpdate(manager, job.accountId);
      await this.follow(manager, account, job, lifecycle.unblockStep(account, run, Date.now(), delays, unblocked), blocked);
    });
  }

  /** Carries out a step on the locked account; `blocked`: the cards the processor was asked to unblock. */
  private async follow(manager: EntityManager, account: Account, job: UnblockJobData, step: lifecycle.UnblockStep, blocked: readonly string[]): Promise<void> {
    switch (step.step) {
      case 'skip':
      case 'try':
        return;
      case 'wait':
        // Not `schedule`: its id names the attempt, and the job that holds that id is this one, still running.
        await this.jobs.send(CARD_UNBLOCK_JOB, job, { startAfterMs: step.afterMs }, manager);
        return;
      case 'succeed': {
        const cards = (await this.instruments.listFor(manager, account.id)).filter((card) => blocked.includes(card.id));
        await this.settle(manager, account, job, 'cardUnblock.succeeded', lifecycle.unblockCards(account, cards, job.attempt));
        return;
      }
      case 'retry':
        await this.settle(manager, account, job, 'cardUnblock.failed', lifecycle.unblockFailed(account, job.attempt));
        await this.schedule(manager, { ...job, attempt: job.attempt + 1 }, step.afterMs);
        return;
      case 'exhaust':
        await this.settle(manager, account, job, 'cardUnblock.exhausted', lifecycle.unblockExhausted(account, job.attempt));
        return;
    }
  }

  /** Applies one step of the run to the locked account and records it in the care audit trail. */
  private async settle(manager: EntityManager, account: Account, job: UnblockJobData, action: string, change: lifecycle.Transition): Promise<void> {
    const before = await this.runner.snapshot(manager, account);
    const { account: current } = await this.writer.apply(manager, account, change);
    const after = await this.runner.snapshot(manager, current);
    await this.audit.record(manager, {
      accountId: account.id,
      actor: SYSTEM_ACTOR,
      action,
      before,
      after,
      detail: { runId: job.runId, attempt: job.attempt },
    });
  }

  private async schedule(manager: EntityManager, data: UnblockJobData, delayMs: number): Promise<void> {
    const id = deterministicJobId(CARD_UNBLOCK_JOB.name, data.runId, data.attempt);
    await this.jobs.send(CARD_UNBLOCK_JOB, data, { id, startAfterMs: delayMs }, manager);
  }
}

/** The sandbox's `sandboxUnblockFailures`: absent is 0; anything but a non-negative integer is 400/100/5 naming it. */
function sandboxUnblockFailures(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new DomainError('INVALID_FIELD', { field: 'sandboxUnblockFailures', property: 'sandboxUnblockFailures' });
  }
  return value;
}
