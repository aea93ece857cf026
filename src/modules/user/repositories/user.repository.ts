import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { BlindIndex, FieldCipher } from '../../../infrastructure/crypto/field-cipher';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import { isUuid } from '../../../common/validation/identifiers';
import { AddressType, UserAddress } from '../entities/user-address.entity';
import { PhoneType, UserPhone } from '../entities/user-phone.entity';
import { User } from '../entities/user.entity';

/**
 * AES-GCM additional data per column; every value is also bound to its row's id (FieldCipher `v2`),
 * so a value copied into another column, or swapped with another row's, does not decrypt.
 */
export const USER_CIPHER_CONTEXT = {
  firstName: 'users.first_name',
  middleName: 'users.middle_name',
  lastName: 'users.last_name',
  dateOfBirth: 'users.date_of_birth',
  ssn: 'users.ssn',
  ssnSuffix: 'users.ssn_suffix',
  itin: 'users.itin',
  matricula: 'users.matricula',
  email: 'users.email',
  address: 'user_addresses.address',
  phone: 'user_phones.number',
} as const;

export interface AddressPlain {
  type: AddressType;
  isDefault: boolean;
  addressLine1: string;
  addressLine2?: string;
  city: string;
  state: string;
  zipCode: string;
  countryCode: string;
}

export interface PhonePlain {
  phoneType: PhoneType;
  number: string;
  isDefault: boolean;
}

/** The identity document a user enrolled with (at most one kind besides an ITIN added later). */
export interface IdentityPlain {
  ssn?: string;
  ssnSuffix?: string;
  itin?: string;
  matriculaId?: string;
}

/** Everything the service knows about a user, decrypted: the plaintext of `encryptedUserData`. */
export interface UserDataPlain {
  firstName: string;
  middleName?: string;
  lastName: string;
  identifyingData: { dateOfBirth: string } & IdentityPlain;
  addresses: AddressPlain[];
  phoneNumbers: PhonePlain[];
  email?: { emailAddress: string };
}

/** A new user's rows, as `build` makes them (address and phone rows in `stage`'s column order). */
export interface NewUserRows {
  user: User;
  addresses: unknown[][];
  phones: unknown[][];
}

type StoredAddress = Omit<AddressPlain, 'type' | 'isDefault'>;

/** A user's encrypted contact rows, as a read that aggregates them returns them (oldest first). */
export interface ContactRows {
  addresses: Array<Pick<UserAddress, 'id' | 'type' | 'isDefault' | 'addressEnc'>>;
  phones: Array<Pick<UserPhone, 'id' | 'phoneType' | 'isDefault' | 'numberEnc'>>;
}

/**
 * Persistence of users, their addresses and phones: the only place that encrypts or decrypts
 * their columns. Callers pass the EntityManager of their transaction.
 */
@Injectable()
export class UserRepository {
  constructor(
    private readonly cipher: FieldCipher,
    private readonly blindIndex: BlindIndex,
  ) {}

  /**
   * The rows of the primary user of a new account, with addresses and phones (defaults already
   * resolved), encrypted and built in memory; `stage` adds them to the caller's batch.
   */
  build(accountId: string, data: UserDataPlain, status: string, now: Date): NewUserRows {
    const c = this.cipher;
    const id = data.identifyingData;
    const userId = randomUUID();
    const user: User = Object.assign(new User(), {
      id: userId,
      accountId,
      isPrimary: true,
      status,
      firstNameEnc: c.encrypt(data.firstName, USER_CIPHER_CONTEXT.firstName, userId),
      middleNameEnc: c.encryptNullable(data.middleName, USER_CIPHER_CONTEXT.middleName, userId),
      lastNameEnc: c.encrypt(data.lastName, USER_CIPHER_CONTEXT.lastName, userId),
      dateOfBirthEnc: c.encrypt(id.dateOfBirth, USER_CIPHER_CONTEXT.dateOfBirth, userId),
      ssnEnc: c.encryptNullable(id.ssn, USER_CIPHER_CONTEXT.ssn, userId),
      ssnSuffixEnc: c.encryptNullable(id.ssnSuffix, USER_CIPHER_CONTEXT.ssnSuffix, userId),
      itinEnc: c.encryptNullable(id.itin, USER_CIPHER_CONTEXT.itin, userId),
      matriculaEnc: c.encryptNullable(id.matriculaId, USER_CIPHER_CONTEXT.matricula, userId),
      emailEnc: c.encryptNullable(data.email?.emailAddress, USER_CIPHER_CONTEXT.email, userId),
      ssnBidx: id.ssn ? this.blindIndex.of('ssn', id.ssn) : null,
      itinBidx: id.itin ? this.itinIndex(id.itin) : null,
      matriculaBidx: id.matriculaId ? this.blindIndex.of('matricula', id.matriculaId) : null,
      createdAt: now,
      updatedAt: now,
    });
    // A millisecond apart in the request's order: reads list contact rows by created_at, and a
    // later read must list them as the enrollment answered (ids are random, so no tie-break helps).
    const at = (index: number) => new Date(now.getTime() + index);
    return {
      user,
      addresses: data.addresses.map((address, i) => {
        const rowId = randomUUID();
        return [rowId, user.id, address.type, address.isDefault, this.encryptAddress(rowId, address), at(i), at(i)];
      }),
      phones: data.phoneNumbers.map((phone, i) => {
        const rowId = randomUUID();
        return [rowId, user.id, phone.phoneType, phone.isDefault, this.encryptPhone(rowId, phone.number), this.phoneIndex(phone.number), at(i), at(i)];
      }),
    };
  }

  stage(batch: WriteBatch, { user: u, addresses, phones }: NewUserRows): void {
    batch.insert(
      'users',
      [
        'id',
        'account_id',
        'is_primary',
        'status',
        'first_name_enc',
        'middle_name_enc',
        'last_name_enc',
        'date_of_birth_enc',
        'ssn_enc',
        'ssn_suffix_enc',
        'itin_enc',
        'matricula_enc',
        'email_enc',
        'ssn_bidx',
        'itin_bidx',
        'matricula_bidx',
        'created_at',
        'updated_at',
      ],
      [
        [
          u.id,
          u.accountId,
          u.isPrimary,
          u.status,
          u.firstNameEnc,
          u.middleNameEnc,
          u.lastNameEnc,
          u.dateOfBirthEnc,
          u.ssnEnc,
          u.ssnSuffixEnc,
          u.itinEnc,
          u.matriculaEnc,
          u.emailEnc,
          u.ssnBidx,
          u.itinBidx,
          u.matriculaBidx,
          u.createdAt,
          u.updatedAt,
        ],
      ],
    );
    batch.insert('user_addresses', ['id', 'user_id', 'type', 'is_default', 'address_enc', 'created_at', 'updated_at'], addresses);
    batch.insert('user_phones', ['id', 'user_id', 'phone_type', 'is_default', 'number_enc', 'number_bidx', 'created_at', 'updated_at'], phones);
  }

  /** The user's new email, as a part of the caller's batch; returns its ciphertext (the answer is built from it). */
  stageEmail(batch: WriteBatch, userId: string, emailAddress: string): string {
    const emailEnc = this.cipher.encrypt(emailAddress, USER_CIPHER_CONTEXT.email, userId);
    batch.write(`update users set email_enc = $2, updated_at = now() where id = $1`, [userId, emailEnc]);
    return emailEnc;
  }

  itinIndex(itin: string): string {
    return this.blindIndex.of('itin', itin);
  }

  /** The user's ITIN, as a part of the caller's batch; returns the stored columns (the answer is built from them). */
  stageItin(batch: WriteBatch, userId: string, itin: string): { itinEnc: string; itinBidx: string } {
    const columns = { itinEnc: this.cipher.encrypt(itin, USER_CIPHER_CONTEXT.itin, userId), itinBidx: this.itinIndex(itin) };
    batch.write(`update users set itin_enc = $2, itin_bidx = $3, updated_at = now() where id = $1`, [userId, columns.itinEnc, columns.itinBidx]);
    return columns;
  }

  /** The address columns other than type/default, as one encrypted JSON value. */
  encryptAddress(addressId: string, address: AddressPlain | StoredAddress): string {
    const { addressLine1, addressLine2, city, state, zipCode, countryCode } = address;
    return this.cipher.encryptJson({ addressLine1, addressLine2, city, state, zipCode, countryCode }, USER_CIPHER_CONTEXT.address, addressId);
  }

  encryptPhone(phoneId: string, number: string): string {
    return this.cipher.encrypt(number, USER_CIPHER_CONTEXT.phone, phoneId);
  }

  phoneIndex(number: string): string {
    return this.blindIndex.of('phone', number);
  }

  primaryOf(manager: EntityManager, accountId: string): Promise<User | null> {
    return manager.findOne(User, { where: { accountId, isPrimary: true } });
  }

  /** Every user of an account, primary first (the care console's account page). */
  usersOf(manager: EntityManager, accountId: string): Promise<User[]> {
    return manager.find(User, { where: { accountId }, order: { isPrimary: 'DESC', createdAt: 'ASC' } });
  }

  /**
   * Accounts whose user has this full SSN (or ITIN: a 9-digit value may be either) or this phone
   * number, found through the blind indexes only: never a plaintext or partial match.
   */
  async accountIdsByIdentity(manager: EntityManager, kind: 'ssn' | 'phone', value: string): Promise<string[]> {
    const rows = (await (kind === 'ssn'
      ? manager.query(`select distinct account_id from users where ssn_bidx = $1 or itin_bidx = $2`, [this.blindIndex.of('ssn', value), this.itinIndex(value)])
      : manager.query(`select distinct u.account_id from users u join user_phones p on p.user_id = u.id where p.number_bidx = $1`, [
          this.phoneIndex(value),
        ]))) as Array<{ account_id: string }>;
    return rows.map((row) => row.account_id);
  }

  /** The user, or null for an identifier that is not a UUID (PostgreSQL would refuse it as one: a 500). */
  async findById(manager: EntityManager, accountId: string, userId: string): Promise<User | null> {
    if (!isUuid(userId) || !isUuid(accountId)) return null;
    return manager.findOne(User, { where: { id: userId, accountId } });
  }

  addressesOf(manager: EntityManager, userId: string): Promise<UserAddress[]> {
    return manager.find(UserAddress, { where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  phonesOf(manager: EntityManager, userId: string): Promise<UserPhone[]> {
    return manager.find(UserPhone, { where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  dateOfBirthOf(user: User): string {
    return this.cipher.decrypt(user.dateOfBirthEnc, USER_CIPHER_CONTEXT.dateOfBirth, user.id);
  }

  namesOf(user: User): { firstName: string; middleName?: string; lastName: string } {
    const middleName = this.cipher.decryptNullable(user.middleNameEnc, USER_CIPHER_CONTEXT.middleName, user.id);
    return {
      firstName: this.cipher.decrypt(user.firstNameEnc, USER_CIPHER_CONTEXT.firstName, user.id),
      ...(middleName !== null ? { middleName } : {}),
      lastName: this.cipher.decrypt(user.lastNameEnc, USER_CIPHER_CONTEXT.lastName, user.id),
    };
  }

  decryptAddress(row: ContactRows['addresses'][number]): AddressPlain {
    const stored = this.cipher.decryptJson<StoredAddress>(row.addressEnc, USER_CIPHER_CONTEXT.address, row.id);
    return { type: row.type, isDefault: row.isDefault, ...stored };
  }

  decryptPhone(row: ContactRows['phones'][number]): PhonePlain {
    return { phoneType: row.phoneType, number: this.cipher.decrypt(row.numberEnc, USER_CIPHER_CONTEXT.phone, row.id), isDefault: row.isDefault };
  }

  /** The full plaintext of a user (only for the partner view of encryption partners and KYC screening). */
  async decrypt(manager: EntityManager, user: User): Promise<UserDataPlain> {
    const addresses = await this.addressesOf(manager, user.id);
    const phones = await this.phonesOf(manager, user.id);
    return this.decryptWith(user, { addresses, phones });
  }

  /** The same plaintext from contact rows the caller already read. */
  decryptWith(user: User, contact: ContactRows): UserDataPlain {
    const c = this.cipher;
    const identity: IdentityPlain = {};
    const ssn = c.decryptNullable(user.ssnEnc, USER_CIPHER_CONTEXT.ssn, user.id);
    const ssnSuffix = c.decryptNullable(user.ssnSuffixEnc, USER_CIPHER_CONTEXT.ssnSuffix, user.id);
    const itin = c.decryptNullable(user.itinEnc, USER_CIPHER_CONTEXT.itin, user.id);
    const matriculaId = c.decryptNullable(user.matriculaEnc, USER_CIPHER_CONTEXT.matricula, user.id);
    if (ssn !== null) identity.ssn = ssn;
    if (ssnSuffix !== null) identity.ssnSuffix = ssnSuffix;
    if (itin !== null) identity.itin = itin;
    if (matriculaId !== null) identity.matriculaId = matriculaId;
    const email = c.decryptNullable(user.emailEnc, USER_CIPHER_CONTEXT.email, user.id);
    return {
      ...this.namesOf(user),
      identifyingData: { dateOfBirth: this.dateOfBirthOf(user), ...identity },
      addresses: contact.addresses.map((row) => this.decryptAddress(row)),
      phoneNumbers: contact.phones.map((row) => this.decryptPhone(row)),
      ...(email !== null ? { email: { emailAddress: email } } : {}),
    };
  }
}
