/**
 * The user module's row types, for other modules to read. Type-only: the entity classes stay
 * inside this module (only UserRepository writes the tables), which `npm run lint` checks.
 */
export type { User } from './entities/user.entity';
export type { UserAddress } from './entities/user-address.entity';
export type { UserPhone } from './entities/user-phone.entity';
