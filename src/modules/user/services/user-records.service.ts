import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import type { CallConnection } from '../../../infrastructure/database/call-connection';
import type { User } from '../entities/user.entity';
import { LockedForItin, LockedUser, LockedUserRepository, LockScope } from '../repositories/locked-user.repository';
import { UserDataPlain, UserRepository } from '../repositories/user.repository';

/**
 * What other modules do with users: add a new account's primary user, find and decrypt users, and
 * lock one with its account for a change (the ITIN). Callers pass the manager (and batch) of their
 * call; the SQL and the ciphers of the user columns stay in this module's repositories.
 */
@Injectable()
export class UserRecordsService {
  constructor(
    private readonly users: UserRepository,
    private readonly locks: LockedUserRepository,
  ) {}

  /** The primary user of a new account with its addresses and phones, encrypted in memory and added to the caller's batch; returned as written. */
  stageNew(batch: WriteBatch, accountId: string, data: UserDataPlain, status: string, now: Date): User {
    const rows = this.users.build(accountId, data, status, now);
    this.users.stage(batch, rows);
    return rows.user;
  }

  primaryOf(manager: EntityManager, accountId: string): Promise<User | null> {
    return this.users.primaryOf(manager, accountId);
  }

  findById(manager: EntityManager, accountId: string, userId: string): Promise<User | null> {
    return this.users.findById(manager, accountId, userId);
  }

  /** Every user of an account, primary first. */
  usersOf(manager: EntityManager, accountId: string): Promise<User[]> {
    return this.users.usersOf(manager, accountId);
  }

  /** Accounts whose user has this full SSN (or ITIN) or phone number, found through the blind indexes only. */
  accountIdsByIdentity(manager: EntityManager, kind: 'ssn' | 'phone', value: string): Promise<string[]> {
    return this.users.accountIdsByIdentity(manager, kind, value);
  }

  /** The full plaintext of a user, contact rows included (KYC screening, the care console's reveals). */
  decrypt(manager: EntityManager, user: User): Promise<UserDataPlain> {
    return this.users.decrypt(manager, user);
  }

  namesOf(user: User): { firstName: string; middleName?: string; lastName: string } {
    return this.users.namesOf(user);
  }

  dateOfBirthOf(user: User): string {
    return this.users.dateOfBirthOf(user);
  }

  /** The account locked with one of its users and the user's contact rows, in one statement (404 ACCOUNT_NOT_FOUND otherwise). */
  lock(call: CallConnection, scope: LockScope, accountId: string, userId: string): Promise<LockedUser> {
    return this.locks.lock(call, scope, accountId, userId);
  }

  /** The same lock and checks, reading only what an ITIN addition whose answer seals nothing uses. */
  lockForItin(call: CallConnection, scope: LockScope, accountId: string, userId: string): Promise<LockedForItin> {
    return this.locks.lockForItin(call, scope, accountId, userId);
  }

  /** The ITIN's blind index (what the user row and the ITIN limit key hold). */
  itinIndex(itin: string): string {
    return this.users.itinIndex(itin);
  }

  /** The user's ITIN, added to the caller's batch; returns the stored columns (the answer is built from them). */
  stageItin(batch: WriteBatch, userId: string, itin: string): { itinEnc: string; itinBidx: string } {
    return this.users.stageItin(batch, userId, itin);
  }
}
