import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Principal } from '../../../common/context/request-context';
import { DomainError } from '../../../common/errors/domain-error';
import { noteCallProgram } from '../../../common/context/request-context';
import { AccountLimitsService } from '../../accounts/services/account-limits.service';
import { OutboxService } from '../../events/outbox.service';
import { CallRunner } from '../../locking/call-runner';
import { LockNames } from '../../../infrastructure/database/lock.service';
import type { CallConnection } from '../../../infrastructure/database/call-connection';
import type { WriteBatch } from '../../../infrastructure/database/write-batch';
import { UserRecordsService } from '../../user/services/user-records.service';
import { UserView, UserViewService } from '../../user/services/user-view.service';
import type { LockedForItin } from '../../user/user.types';

/**
 * Adds an ITIN to a user of a Matricula-based enrollment. The ITIN is then a limit key of the
 * account, counted by later enrollments and ITIN additions like one given at enrollment.
 */
@Injectable()
export class IdentityService {
  constructor(
    private readonly calls: CallRunner,
    private readonly users: UserRecordsService,
    private readonly limits: AccountLimitsService,
    private readonly outbox: OutboxService,
    private readonly views: UserViewService,
  ) {}

  /** Returns the user's view, rendered on the call's locked connection (waiting callers may hold every pooled one). */
  addItin(principal: Principal, accountId: string, userId: string, itin: string): Promise<UserView> {
    return this.calls.locked([LockNames.account(accountId), LockNames.user(userId)], (call) => this.addItinLocked(call, principal, accountId, userId, itin));
  }

  /**
   * BEGIN with the call's locks; the account (of any of the partner's programs) locked with the
   * user in one statement (with its encrypted columns and contact rows only when the answer seals
   * the user for the partner); the ITIN limit's count and record; the ITIN and the outbox row in
   * one statement; COMMIT. The answer is built from memory.
   */
  private async addItinLocked(call: CallConnection, principal: Principal, accountId: string, userId: string, itin: string): Promise<UserView> {
    // No programCode in the path: the account must belong to one of the partner's programs.
    const scope = { partnerId: principal.partner.partnerId, programCode: null };
    if (this.views.sealsFor(principal.partner)) {
      const locked = await this.users.lock(call, scope, accountId, userId);
      await this.add(call.manager, call.batch, principal, locked, itin);
      return this.views.viewOf(locked.user, locked.contact, principal.partner);
    }
    const locked = await this.users.lockForItin(call, scope, accountId, userId);
    await this.add(call.manager, call.batch, principal, locked, itin);
    return this.views.unsealedViewOf(locked.user);
  }

  /** The ITIN's rules and writes (added to the call's batch with its outbox row); the user in memory gets its new columns too. */
  private async add(manager: EntityManager, batch: WriteBatch, principal: Principal, { account, user }: LockedForItin, itin: string): Promise<void> {
    if (!principal.partner.programs.includes(account.programCode)) throw new DomainError('ACCOUNT_NOT_FOUND');
    noteCallProgram(account.programCode);
    if (account.identityKind !== 'matricula') throw new DomainError('NOT_MATRICULA_ENROLLMENT');
    if (account.status === 'locked') throw new DomainError('ACCOUNT_LOCKED');

    const itinBidx = this.users.itinIndex(itin);
    // The same ITIN again changes nothing.
    if (user.itinBidx === itinBidx) return;
    if (user.itinBidx !== null) throw new DomainError('ITIN_ALREADY_ADDED');

    await this.limits.claimForAccount(manager, account, { kind: 'itin', value: itin }, batch);
    // A sealed answer decrypts the new ITIN from the user in memory.
    Object.assign(user, this.users.stageItin(batch, user.id, itin));
    this.outbox.stage(batch, [
      {
        partnerId: account.partnerId,
        programCode: account.programCode,
        accountId: account.id,
        eventType: 'userUpdated',
        data: { userIdentifier: user.id, changed: ['identity'] },
      },
    ]);
  }
}
