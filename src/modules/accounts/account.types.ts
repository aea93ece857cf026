/**
 * The account module's row types, for other modules to read. Type-only: the entity classes and
 * repositories stay inside this module (other modules call AccountsService), which `npm run lint` checks.
 */
export type { Account, AccountStatus, AccountType, IdentityKind, KycPendingGate } from './entities/account.entity';
export type { PaymentInstrument, PaymentInstrumentStatus } from './entities/payment-instrument.entity';
export type { Purse } from './entities/purse.entity';
export type { LimitKeyKind } from './entities/account-limit-key.entity';
export type { AccountPatch, AccountState, NewAccount, NewAccountRows, StoredAccountData } from './repositories/account.repository';
