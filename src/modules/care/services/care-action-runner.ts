import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import { noteCallProgram } from '../../../common/context/request-context';
import type { Account } from '../../accounts/account.types';
import type { PaymentInstrument } from '../../accounts/account.types';
import { AccountsService } from '../../accounts/services/accounts.service';
import { PaymentInstrumentService } from '../../accounts/services/payment-instrument.service';
import { AccountSnapshot, AuditEntry, CareAuditService, StaffIdentity } from '../../audit/care-audit.service';
import { publishedState } from '../../lifecycle/account-lifecycle';
import type { CallConnection } from '../../../infrastructure/database/call-connection';

/**
 * Who acts: recorded in the audit trail; `programs` bounds which accounts the care client reaches.
 * A console action also names the staff member and the reason they gave (CONTRACT section 14).
 */
export interface CareActor {
  actor: string;
  programs: readonly string[];
  staff?: StaffIdentity;
  reason?: string;
}

/** The audit fields of an actor, for an entry of its action. */
export function auditedActor(who: CareActor): Pick<AuditEntry, 'actor' | 'staff' | 'reason'> {
  return { actor: who.actor, ...(who.staff ? { staff: who.staff } : {}), ...(who.reason !== undefined ? { reason: who.reason } : {}) };
}

export type CareWork = (manager: EntityManager, account: Account, cards: PaymentInstrument[]) => Promise<Record<string, unknown> | void>;

/** Runs one care action as one transaction: lock the account row, act, audit before and after. */
@Injectable()
export class CareActionRunner {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accounts: AccountsService,
    private readonly instruments: PaymentInstrumentService,
    private readonly audit: CareAuditService,
  ) {}

  /** On the care call's connection, in its transaction (the CallRunner's, locked on the account). */
  run(call: CallConnection, who: CareActor, accountId: string, action: string, work: CareWork): Promise<void> {
    return call.run(async (manager) => {
      const account = await this.lockAccount(manager, who, accountId);
      const cards = await this.instruments.listFor(manager, account.id);
      const before = snapshotOf(account, cards);
      const detail = await work(manager, account, cards);
      const after = await this.snapshot(manager, await this.accounts.lockForUpdate(manager, account.id));
      await this.audit.record(manager, { accountId: account.id, ...auditedActor(who), action, before, after, detail: detail ?? {} });
    });
  }

  /** An account outside the care client's programs is as unknown as a missing one. */
  async requireVisible(who: CareActor, accountId: string, manager: EntityManager = this.dataSource.manager): Promise<Account> {
    const found = await this.accounts.findById(manager, accountId);
    if (!found || !who.programs.includes(found.programCode)) throw new DomainError('ACCOUNT_NOT_FOUND');
    noteCallProgram(found.programCode);
    return found;
  }

  async lockAccount(manager: EntityManager, who: CareActor, accountId: string): Promise<Account> {
    const found = await this.requireVisible(who, accountId, manager);
    return this.accounts.lockForUpdate(manager, found.id);
  }

  /** The state an audit entry records: published account state and every card's status. */
  async snapshot(manager: EntityManager, account: Account): Promise<AccountSnapshot> {
    return snapshotOf(account, await this.instruments.listFor(manager, account.id));
  }
}

function snapshotOf(account: Account, cards: PaymentInstrument[]): AccountSnapshot {
  return { ...publishedState(account), paymentInstruments: cards.map((card) => ({ paymentIdentifier: card.id, status: card.status })) };
}
