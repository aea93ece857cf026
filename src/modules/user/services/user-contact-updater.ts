import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../common/errors/domain-error';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import { AddressDto } from '../dtos/address.dto';
import { PhoneDto } from '../dtos/phone.dto';
import { ContactRows, UserRepository } from '../repositories/user.repository';

/** The default phone before and after a phone update: the phone limits count only the default. */
export interface DefaultPhoneChange {
  before: string | null;
  after: string | null;
}

/**
 * Applies the address and phone parts of a user update (SERVICE.md user update rules 1-4) to the
 * contact rows read under the call's lock: the rows in memory change as the stored ones will (the
 * answer is built from them), and the writes join the caller's batch, one statement per table.
 * Nothing is ever deleted.
 */
@Injectable()
export class UserContactUpdater {
  constructor(private readonly users: UserRepository) {}

  /** The address rule that needs no stored data: cards ship to the default address, which may only be a home or business one. */
  checkAddress(input: AddressDto): void {
    if (input.isDefault === true && input.type === 'mailing') {
      throw new DomainError('MULTIPLE_DEFAULT_ADDRESSES', { field: 'encryptedUserData.address.isDefault' });
    }
  }

  /** Same type: replaced in place; new type: added. isDefault true moves the default to it. */
  applyAddress(batch: WriteBatch, userId: string, contact: Partial<ContactRows>, input: AddressDto): void {
    this.checkAddress(input);
    const plain = { ...input, countryCode: input.countryCode ?? 'US', isDefault: input.isDefault === true };
    const rows = readRows(contact.addresses, 'address');
    // A user without a default (none stored yet) gets this one, when it can ship cards.
    const becomesDefault = plain.isDefault || (!rows.some((row) => row.isDefault) && input.type !== 'mailing');
    const existing = rows.find((row) => row.type === input.type);
    // The ciphertext is bound to its row: a new row's id is chosen before it is encrypted.
    const rowId = existing?.id ?? randomUUID();
    const addressEnc = this.users.encryptAddress(rowId, plain);
    let target = existing;
    if (target) {
      target.addressEnc = addressEnc;
      batch.write(
        `update user_addresses
            set address_enc = case when id = $2::uuid then $3 else address_enc end,
                is_default = case when $4::boolean then id = $2::uuid else is_default end,
                updated_at = now()
          where user_id = $1 and (id = $2::uuid or $4::boolean)`,
        [userId, target.id, addressEnc, becomesDefault],
      );
    } else {
      target = { id: rowId, type: input.type, isDefault: becomesDefault, addressEnc };
      batch.write(`insert into user_addresses (id, user_id, type, is_default, address_enc) values ($1, $2, $3, $4, $5)`, [
        target.id,
        userId,
        target.type,
        becomesDefault,
        addressEnc,
      ]);
      if (becomesDefault)
        batch.write(`update user_addresses set is_default = false, updated_at = now() where user_id = $1 and id <> $2::uuid`, [userId, target.id]);
      rows.push(target);
    }
    if (becomesDefault) for (const row of rows) row.isDefault = row === target;
  }

  /**
   * One stored phone: updated in place, type included. Several: the phone of the same type is
   * updated, a new type is added. Returns the default phone's number before and after.
   */
  applyPhone(batch: WriteBatch, userId: string, contact: Partial<ContactRows>, input: PhoneDto): DefaultPhoneChange {
    const phones = readRows(contact.phones, 'phone');
    const previousDefault = phones.find((row) => row.isDefault) ?? null;
    const before = previousDefault ? this.users.decryptPhone(previousDefault).number : null;
    // The only phone is always the default; otherwise only an explicit isDefault moves it.
    const becomesDefault = input.isDefault === true || phones.length <= 1 || previousDefault === null;
    const existing = phones.length === 1 ? phones[0] : phones.find((row) => row.phoneType === input.phoneType);
    const rowId = existing?.id ?? randomUUID();
    const numberEnc = this.users.encryptPhone(rowId, input.number);
    const numberBidx = this.users.phoneIndex(input.number);
    let target = existing;
    if (target) {
      target.phoneType = input.phoneType;
      target.numberEnc = numberEnc;
      batch.write(
        `update user_phones
            set phone_type = case when id = $2::uuid then $3 else phone_type end,
                number_enc = case when id = $2::uuid then $4 else number_enc end,
                number_bidx = case when id = $2::uuid then $5 else number_bidx end,
                is_default = case when $6::boolean then id = $2::uuid else is_default end,
                updated_at = now()
          where user_id = $1 and (id = $2::uuid or $6::boolean)`,
        [userId, target.id, input.phoneType, numberEnc, numberBidx, becomesDefault],
      );
    } else {
      target = { id: rowId, phoneType: input.phoneType, isDefault: becomesDefault, numberEnc };
      batch.write(`insert into user_phones (id, user_id, phone_type, is_default, number_enc, number_bidx) values ($1, $2, $3, $4, $5, $6)`, [
        target.id,
        userId,
        input.phoneType,
        becomesDefault,
        numberEnc,
        numberBidx,
      ]);
      if (becomesDefault)
        batch.write(`update user_phones set is_default = false, updated_at = now() where user_id = $1 and id <> $2::uuid`, [userId, target.id]);
      phones.push(target);
    }
    if (becomesDefault) for (const row of phones) row.isDefault = row === target;
    const after = becomesDefault || previousDefault === target ? input.number : before;
    return { before, after };
  }
}

/** A change reads only the contact rows its body touches (LockedUserRepository.lockForChange): a kind it applies was read. */
function readRows<T>(rows: T | undefined, kind: string): T {
  if (rows === undefined) throw new Error(`the user's ${kind} rows were not read`);
  return rows;
}
