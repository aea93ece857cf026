import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import { AddressDto } from '../dtos/address.dto';
import { PhoneDto } from '../dtos/phone.dto';
import { UserAddress } from '../entities/user-address.entity';
import { UserPhone } from '../entities/user-phone.entity';
import { User } from '../entities/user.entity';
import { UserRecordsService } from './user-records.service';

/** The default phone before and after a phone update: the phone limits count only the default. */
export interface DefaultPhoneChange {
  before: string | null;
  after: string | null;
}

/**
 * Applies the address, email and phone parts of a user update (SERVICE.md user update rules 1-4)
 * on the caller's transaction. Nothing is ever deleted.
 */
@Injectable()
export class UserContactUpdater {
  constructor(
    private readonly users: UserRecordsService,
  ) {}

  /** The address rule that needs no stored data: cards ship to the default address, which may only be a home or business one. */
  checkAddress(input: AddressDto): void {
    if (input.isDefault === true && input.type === 'mailing') {
      throw new DomainError('MULTIPLE_DEFAULT_ADDRESSES', { field: 'encryptedUserData.address.isDefault' });
    }
  }

  /** Same type: replaced in place; new type: added. isDefault true moves the default to it. */
  async applyAddress(manager: EntityManager, user: User, input: AddressDto): Promise<void> {
    this.checkAddress(input);
    const plain = { ...input, countryCode: input.countryCode ?? 'US', isDefault: input.isDefault === true };
    const existing = await this.users.addressesOf(manager, user.id);
    const same = existing.find((row) => row.type === input.type);
    // A user without a default (none stored yet) gets this one, when it can ship cards.
    const becomesDefault = plain.isDefault || (!existing.some((row) => row.isDefault) && input.type !== 'mailing');
    let targetId: string;
    if (same) {
      await this.users.updateAddress(manager, same.id, plain);
      targetId = same.id;
    } else {
      targetId = (await this.users.insertAddress(manager, user.id, { ...plain, isDefault: false })).id;
    }
    if (becomesDefault) await this.makeDefault(manager, UserAddress, user.id, targetId);
  }

  async applyEmail(manager: EntityManager, user: User, emailAddress: string): Promise<void> {
    await this.users.setEmail(manager, user.id, emailAddress);
  }

  /**
   * One stored phone: updated in place, type included. Several: the phone of the same type is
   * updated, a new type is added. Returns the default phone's number before and after.
   */
  async applyPhone(manager: EntityManager, user: User, input: PhoneDto): Promise<DefaultPhoneChange> {
    const phones = await this.users.phonesOf(manager, user.id);
    const previousDefault = phones.find((row) => row.isDefault) ?? null;
    const before = previousDefault ? this.users.decryptPhone(previousDefault).number : null;
    const target = phones.length === 1 ? phones[0] : phones.find((row) => row.phoneType === input.phoneType);
    let targetId: string;
    if (target) {
      await this.users.updatePhone(manager, target.id, input.phoneType, input.number);
      targetId = target.id;
    } else {
      targetId = (await this.users.insertPhone(manager, user.id, { phoneType: input.phoneType, number: input.number, isDefault: false })).id;
    }
    // The only phone is always the default; otherwise only an explicit isDefault moves it.
    const becomesDefault = input.isDefault === true || phones.length <= 1 || previousDefault === null;
    if (becomesDefault) await this.makeDefault(manager, UserPhone, user.id, targetId);
    const defaultId = becomesDefault ? targetId : previousDefault?.id;
    const after = defaultId === targetId ? input.number : before;
    return { before, after };
  }

  private async makeDefault(manager: EntityManager, entity: typeof UserAddress | typeof UserPhone, userId: string, id: string): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(entity)
      .set({ isDefault: () => 'id = :defaultId', updatedAt: () => 'now()' })
      .where('user_id = :userId', { userId, defaultId: id })
      .execute();
  }
}
