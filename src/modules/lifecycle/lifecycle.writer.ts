import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { WriteBatch } from '../../infrastructure/database/write-batch';
import { Clock } from '../../infrastructure/time/clock';
import type { Account } from '../accounts/account.types';
import type { PaymentInstrument } from '../accounts/account.types';
import { AccountsService } from '../accounts/services/accounts.service';
import { PaymentInstrumentService } from '../accounts/services/payment-instrument.service';
import { OutboxService } from '../events/outbox.service';
import type { Transition } from './account-lifecycle';

/**
 * The one writer of account and card state: applies a transition of `account-lifecycle` in the
 * caller's transaction, in one statement (account row, card rows, new cards, outbox rows), and
 * returns the account and new cards as written, without reading them back.
 */
@Injectable()
export class LifecycleWriter {
  constructor(
    private readonly accounts: AccountsService,
    private readonly instruments: PaymentInstrumentService,
    private readonly outbox: OutboxService,
    private readonly clock: Clock,
  ) {}

  /** `account` must be locked by the caller (`AccountsService.lockForUpdate`). */
  async apply(manager: EntityManager, account: Account, change: Transition): Promise<{ account: Account; issued: PaymentInstrument[] }> {
    const batch = new WriteBatch();
    const after = this.stage(batch, account, change);
    await batch.execute(manager);
    return after;
  }

  /** The same, as parts of the caller's batch. */
  stage(batch: WriteBatch, account: Account, change: Transition): { account: Account; issued: PaymentInstrument[] } {
    const now = this.clock.now();
    const changed = Object.keys(change.patch).length > 0;
    if (changed) this.accounts.stageUpdate(batch, account.id, change.patch);
    for (const move of change.cardMoves) this.instruments.stageStatus(batch, move.id, move.to, move.replacedBy ?? null);
    const issued = change.issue.map((card) => this.instruments.build(card, now));
    for (const card of issued) this.instruments.stage(batch, card);
    if (change.events.length > 0) this.outbox.stage(batch, change.events);
    const after: Account = changed ? { ...account, ...change.patch, version: account.version + 1, updatedAt: now } : account;
    return { account: after, issued };
  }
}
