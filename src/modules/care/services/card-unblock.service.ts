import { randomUUID } from 'node:crypto';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import { AppConfig } from '../../../config/app-config';
import { defineJob, deterministicJobId } from '../../../infrastructure/queue/job-definition';
import { JobQueue } from '../../../infrastructure/queue/job-queue';
import { Account } from '../../accounts/entities/account.entity';
import { AccountRecordsService } from '../../accounts/services/account-records.service';
import { CareActionRunner, CareActor } from './care-action-runner';
import { CareAuditService } from '../../audit/care-audit.service';
import { CARE_REASON, restingStatus } from './care-operations.service';
import { CareStateWriter } from './care-state-writer';
import { CardProcessor } from './card-processor';

interface UnblockJobData {
  accountId: string;
  runId: string;
  attempt: number;
  sandboxFailures: number;
}

export const CARD_UNBLOCK_JOB = defineJob<UnblockJobData>({
  name: 'card-unblock',
  // Handler failures (database trouble) are retried quickly; a processor refusal is an attempt of the run.
  retryLimit: 5,
  retryDelaySeconds: 5,
  expireInSeconds: 60,
});

const SYSTEM_ACTOR = 'system:card-unblock';
const ATTEMPT_ACTIONS = ['cardUnblock.succeeded', 'cardUnblock.failed', 'cardUnblock.exhausted'];

/**
 * SERVICE.md's state table: when the fraud block is removed the account is healthy and normal
 * (status normal, statusReason null, kycPendingGate none; pending when its enrollment never
 * completed) but the card is still blocked; the unblock is retried by durable jobs, once per
 * UNBLOCK_RETRY_DELAYS_MS entry (default 1, 4 and 9 minutes apart: all within 15 minutes). If the
 * last retry fails the account gets kycPendingGate manual and statusReason underReview, for care
 * to finish by hand.
 */
@Injectable()
export class CardUnblockService implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly jobs: JobQueue,
    private readonly runner: CareActionRunner,
    private readonly accounts: AccountRecordsService,
    private readonly writer: CareStateWriter,
    private readonly audit: CareAuditService,
    private readonly processor: CardProcessor,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.jobs.work(CARD_UNBLOCK_JOB, (data) => this.attempt(data));
  }

  removeFraudBlock(who: CareActor, accountId: string, sandboxFailures: number): Promise<void> {
    if (sandboxFailures > 0 && !this.config.isSandbox) {
      throw new DomainError('UNKNOWN_PROPERTY', { field: 'sandboxUnblockFailures', property: 'sandboxUnblockFailures' });
    }
    return this.runner.run(who, accountId, 'fraudBlock.remove', async (manager, account) => {
      if (account.status !== 'locked' || account.statusReason !== CARE_REASON.fraudBlock) throw new DomainError('CARE_NOT_APPLICABLE');
      // SERVICE.md: "healthy and normal", whatever the account was before the block (CONTRACT section 8).
      await this.writer.updateAccount(manager, account, { status: restingStatus(account), statusReason: null, kycPendingGate: 'none' }, 'care.fraudBlockRemoved');
      const runId = randomUUID();
      const delays = this.config.env.unblockRetryDelaysMs;
      await this.schedule(manager, { accountId: account.id, runId, attempt: 1, sandboxFailures }, delays[0] ?? 0);
      return { unblockRunId: runId, sandboxUnblockFailures: sandboxFailures, retryDelaysMs: delays };
    });
  }

  /** One retry of a run. Idempotent: an attempt already recorded, or a run superseded by a new block, does nothing. */
  async attempt(job: UnblockJobData): Promise<void> {
    const blocked = await this.dataSource.transaction(async (manager) => {
      const account = await this.accounts.lockForUpdate(manager, job.accountId);
      if (!(await this.isLive(manager, account, job))) return null;
      return (await this.writer.cards(manager, account.id)).filter((card) => card.status === 'blocked').map((card) => card.id);
    });
    if (blocked === null) return;
    // The processor is called outside any transaction; its answer is applied under the row lock below.
    const unblocked = blocked.length === 0 || (await this.processor.unblock({ paymentIdentifiers: blocked, attempt: job.attempt, sandboxFailures: job.sandboxFailures }));
    await this.dataSource.transaction(async (manager) => {
      const account = await this.accounts.lockForUpdate(manager, job.accountId);
      if (!(await this.isLive(manager, account, job))) return;
      const before = await this.writer.snapshot(manager, account);
      const delays = this.config.env.unblockRetryDelaysMs;
      let action: string;
      let current = account;
      if (unblocked) {
        action = 'cardUnblock.succeeded';
        const target = account.kycPendingGate === 'none' ? 'active' : 'inactive';
        for (const card of await this.writer.cards(manager, account.id)) {
          if (blocked.includes(card.id) && card.status === 'blocked') await this.writer.setCardStatus(manager, account, card, target, 'care.unblock');
        }
      } else if (job.attempt < delays.length) {
        action = 'cardUnblock.failed';
        await this.schedule(manager, { ...job, attempt: job.attempt + 1 }, delays[job.attempt]);
      } else {
        action = 'cardUnblock.exhausted';
        current = await this.writer.updateAccount(manager, account, { kycPendingGate: 'manual', statusReason: CARE_REASON.underReview }, 'care.unblockFailed');
      }
      const after = await this.writer.snapshot(manager, current);
      await this.audit.record(manager, { accountId: account.id, actor: SYSTEM_ACTOR, action, before, after, detail: { runId: job.runId, attempt: job.attempt } });
    });
  }

  private async schedule(manager: EntityManager, data: UnblockJobData, delayMs: number): Promise<void> {
    const id = deterministicJobId(CARD_UNBLOCK_JOB.name, data.runId, data.attempt);
    await this.jobs.send(CARD_UNBLOCK_JOB, data, { id, startAfterMs: delayMs }, manager);
  }

  /** The run is the account's latest fraud-block removal, this attempt is not done yet, and the account is not blocked or closed again. */
  private async isLive(manager: EntityManager, account: Account, job: UnblockJobData): Promise<boolean> {
    if (account.status === 'locked' || account.status === 'closed') return false;
    const latest = await this.audit.latest(manager, account.id, ['fraudBlock', 'fraudBlock.remove']);
    if (latest?.action !== 'fraudBlock.remove' || latest.detail.unblockRunId !== job.runId) return false;
    return !(await this.audit.exists(manager, account.id, ATTEMPT_ACTIONS, { runId: job.runId, attempt: job.attempt }));
  }
}
