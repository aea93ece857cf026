/**
 * The account module's row types, for other modules to read. Type-only: the entity classes stay
 * inside this module (only its repositories write the tables), which `npm run lint` checks.
 */
export type { Account, AccountStatus, AccountType, IdentityKind, KycPendingGate } from './entities/account.entity';
export type { PaymentInstrument, PaymentInstrumentStatus } from './entities/payment-instrument.entity';
export type { Purse } from './entities/purse.entity';
export type { LimitKeyKind } from './entities/account-limit-key.entity';
