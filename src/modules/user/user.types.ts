/**
 * The user module's row and data types, for other modules to read. Type-only: the entity classes
 * and repositories stay inside this module (other modules call UserRecordsService), which
 * `npm run lint` checks.
 */
export type { User } from './entities/user.entity';
export type { UserAddress } from './entities/user-address.entity';
export type { UserPhone } from './entities/user-phone.entity';
export type { AddressPlain, ContactRows, IdentityPlain, PhonePlain, UserDataPlain } from './repositories/user.repository';
export type { LockedForItin, LockedUser, LockScope } from './repositories/locked-user.repository';
