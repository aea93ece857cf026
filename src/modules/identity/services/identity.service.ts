import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { Principal } from '../../../common/context/request-context';
import { DomainError } from '../../../common/errors/domain-error';
import { AccountLimitsService } from '../../accounts/services/account-limits.service';
import { AccountRepository } from '../../accounts/repositories/account.repository';
import { AccountViewService, UserView } from '../../accounts/services/account-view.service';
import { OutboxService } from '../../events/outbox.service';
import { CallRunner } from '../../locking/call-runner';
import { LockNames } from '../../../infrastructure/database/lock.service';
import { TransactionRunner } from '../../../infrastructure/database/transaction-runner';
import type { User } from '../../user/user.types';
import { UserRepository } from '../../user/repositories/user.repository';

/**
 * Adds an ITIN to a user of a Matricula-based enrollment. The ITIN is then a limit key of the
 * account, counted by later enrollments and ITIN additions like one given at enrollment.
 */
@Injectable()
export class IdentityService {
  constructor(
    private readonly calls: CallRunner,
    private readonly transactions: TransactionRunner,
    private readonly accounts: AccountRepository,
    private readonly users: UserRepository,
    private readonly limits: AccountLimitsService,
    private readonly outbox: OutboxService,
    private readonly views: AccountViewService,
  ) {}

  /** Returns the user's view, rendered on the call's locked connection (waiting callers may hold every pooled one). */
  addItin(principal: Principal, accountId: string, userId: string, itin: string): Promise<UserView> {
    return this.calls.locked([LockNames.account(accountId), LockNames.user(userId)], () => this.addItinLocked(principal, accountId, userId, itin));
  }

  private addItinLocked(principal: Principal, accountId: string, userId: string, itin: string): Promise<UserView> {
    return this.transactions.run(async (manager) => {
      // No programCode in the path: the account must belong to one of the partner's programs.
      const found = await this.accounts.requireForPartner(manager, principal.partner.partnerId, null, accountId);
      if (!principal.partner.programs.includes(found.programCode)) throw new DomainError('ACCOUNT_NOT_FOUND');
      const account = await this.accounts.lockForUpdate(manager, found.id);
      // A malformed id is just another unknown user (and never reaches the uuid column).
      const user = isUUID(userId) ? await this.users.findById(manager, account.id, userId) : null;
      if (!user) throw new DomainError('ACCOUNT_NOT_FOUND');
      if (account.identityKind !== 'matricula') throw new DomainError('NOT_MATRICULA_ENROLLMENT');
      if (account.status === 'locked') throw new DomainError('ACCOUNT_LOCKED');

      const itinBidx = this.users.itinIndex(itin);
      if (user.itinBidx === itinBidx) return this.views.userView(user, principal.partner, manager);
      if (user.itinBidx !== null) throw new DomainError('ITIN_ALREADY_ADDED');

      await this.limits.claimForAccount(manager, account, { kind: 'itin', value: itin });
      await this.users.setItin(manager, user.id, itin);
      await this.outbox.emit(manager, {
        partnerId: account.partnerId,
        programCode: account.programCode,
        accountId: account.id,
        eventType: 'userUpdated',
        data: { userIdentifier: user.id, changed: ['identity'] },
      });
      const updated = (await this.users.findById(manager, account.id, user.id)) as User;
      return this.views.userView(updated, principal.partner, manager);
    });
  }
}
