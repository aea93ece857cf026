import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Principal } from '../../../common/context/request-context';
import { DomainError } from '../../../common/errors/domain-error';
import { AccountLimitsService } from '../../accounts/services/account-limits.service';
import type { AccountKey } from '../../accounts/account-columns';
import { OutboxService } from '../../events/outbox.service';
import { CallRunner } from '../../locking/call-runner';
import { LockNames } from '../../../infrastructure/database/lock.service';
import type { CallConnection } from '../../../infrastructure/database/call-connection';
import { UpdateUserDataDto } from '../dtos/update-user.dto';
import type { WriteBatch } from '../../../infrastructure/database/write-batch';
import { UserContactUpdater } from './user-contact-updater';
import { LockedForChange, LockedUserRepository } from '../repositories/locked-user.repository';
import { UserRepository } from '../repositories/user.repository';
import { UserView, UserViewService } from './user-view.service';

/** User profile use case: partial update of contact data (SERVICE.md rules 1-6). */
@Injectable()
export class UserProfileService {
  constructor(
    private readonly calls: CallRunner,
    private readonly locks: LockedUserRepository,
    private readonly users: UserRepository,
    private readonly contact: UserContactUpdater,
    private readonly limits: AccountLimitsService,
    private readonly outbox: OutboxService,
    private readonly views: UserViewService,
  ) {}

  /**
   * Returns the updated user's view (a locked account is declined with nothing stored). Views are
   * rendered on the call's locked connection: waiting callers may hold every pooled one.
   */
  update(principal: Principal, programCode: string, accountId: string, userId: string, data: UpdateUserDataDto): Promise<UserView> {
    return this.calls.locked([LockNames.account(accountId), LockNames.user(userId)], (call) =>
      this.updateLocked(call, principal, programCode, accountId, userId, data),
    );
  }

  /** `?validateOnly=true`: the rules of an update that need no stored data (the DTO's ran in the pipe). No lock, no read. */
  validate(data: UpdateUserDataDto): void {
    if (data.address) this.contact.checkAddress(data.address);
  }

  /**
   * Four statements in two round trips on the common path: the call's BEGIN and locks with one
   * `SELECT … FOR UPDATE` of the account with the user and its contact rows; every write and the
   * outbox row as one statement (the call's batch) with the COMMIT. The answer is built
   * from the rows in memory (nothing read back). A new default phone of the primary user adds the
   * phone limit's count and record.
   */
  private async updateLocked(
    call: CallConnection,
    principal: Principal,
    programCode: string,
    accountId: string,
    userId: string,
    data: UpdateUserDataDto,
  ): Promise<UserView> {
    const scope = { partnerId: principal.partner.partnerId, programCode };
    // An answer sealed for the partner shows the whole user: every column and contact row, to decrypt.
    if (this.views.sealsFor(principal.partner)) {
      const locked = await this.locks.lock(call, scope, accountId, userId);
      await this.change(call, locked, data);
      return this.views.viewOf(locked.user, locked.contact, principal.partner);
    }
    // Anyone else's: only the columns the change uses and the contact rows its body touches.
    const reads = { addresses: data.address !== undefined, phones: data.phoneNumber !== undefined };
    const locked = await this.locks.lockForChange(call, scope, accountId, userId, reads);
    await this.change(call, locked, data);
    return this.views.unsealedViewOf(locked.user);
  }

  /** The update's rules and writes (added to the call's batch with its outbox row), applied to the rows in memory too. */
  private async change(call: CallConnection, { account, user, contact }: LockedForChange, data: UpdateUserDataDto): Promise<void> {
    const batch = call.batch;
    if (account.status === 'locked') throw new DomainError('ACCOUNT_LOCKED');
    const changed: string[] = [];
    if (data.address) {
      this.contact.applyAddress(batch, user.id, contact, data.address);
      changed.push('address');
    }
    if (data.email) {
      // The user in memory gets its new ciphertext too: a sealed answer decrypts it.
      Object.assign(user, { emailEnc: this.users.stageEmail(batch, user.id, data.email.emailAddress) });
      changed.push('email');
    }
    if (data.phoneNumber) {
      const phone = this.contact.applyPhone(batch, user.id, contact, data.phoneNumber);
      if (user.isPrimary && phone.after !== null && phone.after !== phone.before) await this.recordDefaultPhone(call.manager, batch, account, phone.after);
      changed.push('phoneNumber');
    }
    if (changed.length > 0) {
      this.outbox.stage(batch, [
        {
          partnerId: account.partnerId,
          programCode: account.programCode,
          accountId: account.id,
          eventType: 'userUpdated',
          data: { userIdentifier: user.id, changed },
        },
      ]);
    }
  }

  /**
   * The account's default phone changed: the phone limits of enrollment apply to the new number
   * (the account itself excluded), and the account then counts under it instead of the old one.
   */
  private async recordDefaultPhone(manager: EntityManager, batch: WriteBatch, account: AccountKey, number: string): Promise<void> {
    await this.limits.claimForAccount(manager, account, { kind: 'phone', value: number }, batch);
  }
}
