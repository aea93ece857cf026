import { Account } from './entities/account.entity';
import type { PaymentInstrument } from './entities/payment-instrument.entity';
import type { Purse } from './entities/purse.entity';

/**
 * The account row as a one-statement read selects it (alias `a`), with its purses and cards, for
 * the reads that join the account with rows of other modules (the account views, the user update's
 * lock). The accounts module owns these columns; `accountOf` maps such a row back.
 * `ACCOUNT_PUBLIC_COLUMNS` leaves out the encrypted account data, for a view that seals nothing.
 */
export const ACCOUNT_PUBLIC_COLUMNS = `a.id, a.partner_id, a.program_code, a.account_type, a.status, a.status_reason, a.kyc_pending_gate,
       a.account_cycle_day, a.currency, a.identity_kind, a.request_id, a.created_at, a.activated_at, a.closed_at, a.updated_at, a.version`;
export const ACCOUNT_COLUMNS = `${ACCOUNT_PUBLIC_COLUMNS}, a.encrypted_account_data_enc`;

/**
 * What a change of a user decides on: the account's keys, type, status, identity kind, and what the
 * limits count it as (KYC gate, activation) (`accountKeyOf` maps them back).
 */
export type AccountKey = Pick<Account, 'id' | 'partnerId' | 'programCode' | 'accountType' | 'status' | 'identityKind' | 'kycPendingGate' | 'activatedAt'>;
export const ACCOUNT_KEY_COLUMNS = 'a.id, a.partner_id, a.program_code, a.account_type, a.status, a.identity_kind, a.kyc_pending_gate, a.activated_at';

export function accountKeyOf(row: Record<string, unknown>): AccountKey {
  return {
    id: row.id as string,
    partnerId: row.partner_id as string,
    programCode: row.program_code as string,
    accountType: row.account_type as Account['accountType'],
    status: row.status as Account['status'],
    identityKind: row.identity_kind as Account['identityKind'],
    kycPendingGate: row.kyc_pending_gate as Account['kycPendingGate'],
    activatedAt: (row.activated_at as Date | null) ?? null,
  };
}

export function accountOf(row: Record<string, unknown>): Account {
  return Object.assign(new Account(), {
    id: row.id,
    partnerId: row.partner_id,
    programCode: row.program_code,
    accountType: row.account_type,
    status: row.status,
    statusReason: row.status_reason,
    kycPendingGate: row.kyc_pending_gate,
    accountCycleDay: row.account_cycle_day,
    currency: row.currency,
    identityKind: row.identity_kind,
    encryptedAccountDataEnc: row.encrypted_account_data_enc,
    requestId: row.request_id,
    createdAt: row.created_at,
    activatedAt: row.activated_at,
    closedAt: row.closed_at,
    updatedAt: row.updated_at,
    version: row.version,
  });
}

/** An account's purses and cards as JSON arrays (`purses`, `cards`), for the account view's one statement. */
export type PurseRow = Pick<Purse, 'id' | 'purseType' | 'currency' | 'availableBalance' | 'ledgerBalance'>;
export type CardRow = Pick<
  PaymentInstrument,
  'id' | 'type' | 'status' | 'last4' | 'expirationDate' | 'embossedName' | 'embossedBusinessName' | 'embossedNameEnc' | 'embossedBusinessNameEnc'
>;

// Balances as text: numeric(18,2) must not pass through a JSON number.
export const PURSES = `(select coalesce(json_agg(json_build_object('id', p.id, 'purseType', p.purse_type, 'currency', p.currency,
                 'availableBalance', p.available_balance::text, 'ledgerBalance', p.ledger_balance::text) order by p.created_at), '[]')
          from purses p where p.account_id = a.id) as purses`;

export const CARDS = `(select coalesce(json_agg(json_build_object('id', c.id, 'type', c.type, 'status', c.status, 'last4', c.last4,
                 'expirationDate', c.expiration_date, 'embossedName', c.embossed_name, 'embossedBusinessName', c.embossed_business_name,
                 'embossedNameEnc', c.embossed_name_enc, 'embossedBusinessNameEnc', c.embossed_business_name_enc)
                 order by c.created_at, c.id), '[]')
          from payment_instruments c where c.account_id = a.id) as cards`;
