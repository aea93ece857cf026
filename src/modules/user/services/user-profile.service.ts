import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { EntityManager } from 'typeorm';
import { Principal } from '../../../common/context/request-context';
import { DomainError } from '../../../common/errors/domain-error';
import { AccountLimitsService } from '../../accounts/services/account-limits.service';
import { AccountRecordsService } from '../../accounts/services/account-records.service';
import { Account } from '../../accounts/entities/account.entity';
import { AccountViewService, UserView } from '../../accounts/services/account-view.service';
import { OutboxService } from '../../events/outbox.service';
import { CallRunner } from '../../locking/call-runner';
import { LockNames } from '../../locking/lock.service';
import { TransactionRunner } from '../../locking/transaction-runner';
import { UpdateUserDataDto } from '../dtos/update-user.dto';
import { User } from '../entities/user.entity';
import { UserContactUpdater } from './user-contact-updater';
import { UserRecordsService } from './user-records.service';

/** User profile use cases: partial update of contact data (SERVICE.md rules 1-6) and the list of users. */
@Injectable()
export class UserProfileService {
  constructor(
    private readonly calls: CallRunner,
    private readonly transactions: TransactionRunner,
    private readonly accounts: AccountRecordsService,
    private readonly users: UserRecordsService,
    private readonly contact: UserContactUpdater,
    private readonly limits: AccountLimitsService,
    private readonly outbox: OutboxService,
    private readonly views: AccountViewService,
  ) {}

  /**
   * Returns the updated user's view (a locked account is declined with nothing stored). Views are
   * rendered on the call's locked connection: waiting callers may hold every pooled one.
   */
  update(principal: Principal, programCode: string, accountId: string, userId: string, data: UpdateUserDataDto): Promise<UserView> {
    return this.calls.locked([LockNames.account(accountId), LockNames.user(userId)], () => this.updateLocked(principal, programCode, accountId, userId, data));
  }

  /** `?validateOnly=true`: the rules of an update that need no stored data (the DTO's ran in the pipe). No lock, no read. */
  validate(data: UpdateUserDataDto): void {
    if (data.address) this.contact.checkAddress(data.address);
  }

  private updateLocked(principal: Principal, programCode: string, accountId: string, userId: string, data: UpdateUserDataDto): Promise<UserView> {
    return this.transactions.run(async (manager) => {
      const found = await this.accounts.requireForPartner(manager, principal.partner.partnerId, programCode, accountId);
      const account = await this.accounts.lockForUpdate(manager, found.id);
      // A malformed id is just another unknown user (and never reaches the uuid column).
      const user = isUUID(userId) ? await this.users.findById(manager, account.id, userId) : null;
      if (!user) throw new DomainError('ACCOUNT_NOT_FOUND');
      if (account.status === 'locked') throw new DomainError('ACCOUNT_LOCKED');

      const changed: string[] = [];
      if (data.address) {
        await this.contact.applyAddress(manager, user, data.address);
        changed.push('address');
      }
      if (data.email) {
        await this.contact.applyEmail(manager, user, data.email.emailAddress);
        changed.push('email');
      }
      if (data.phoneNumber) {
        const phone = await this.contact.applyPhone(manager, user, data.phoneNumber);
        if (user.isPrimary && phone.after !== null && phone.after !== phone.before) await this.recordDefaultPhone(manager, account, phone.after);
        changed.push('phoneNumber');
      }
      if (changed.length > 0) {
        await this.outbox.emit(manager, {
          partnerId: account.partnerId,
          programCode: account.programCode,
          accountId: account.id,
          eventType: 'userUpdated',
          data: { userIdentifier: user.id, changed },
        });
      }
      const updated = (await this.users.findById(manager, account.id, user.id)) as User;
      return this.views.userView(updated, principal.partner, manager);
    });
  }

  /** Every user of the account, primary first (one statement, tenancy check included). */
  list(principal: Principal, programCode: string, accountId: string): Promise<UserView[]> {
    return this.views.renderUsers(accountId, principal.partner, { partnerId: principal.partner.partnerId, programCode });
  }

  /**
   * The account's default phone changed: the phone limits of enrollment apply to the new number
   * (the account itself excluded), and the account then counts under it instead of the old one.
   */
  private async recordDefaultPhone(manager: EntityManager, account: Account, number: string): Promise<void> {
    await this.limits.claimForAccount(manager, account, { kind: 'phone', value: number });
  }

}
