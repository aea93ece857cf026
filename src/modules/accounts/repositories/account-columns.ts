import { Account } from '../entities/account.entity';

/**
 * The account row as a one-statement read selects it (alias `a`), for the reads that join the
 * account with rows of other modules (the account views, the user update's lock). The accounts
 * module owns its columns; `accountOf` maps such a row back.
 */
export const ACCOUNT_COLUMNS = `a.id, a.partner_id, a.program_code, a.account_type, a.status, a.status_reason, a.kyc_pending_gate,
       a.account_cycle_day, a.currency, a.identity_kind, a.encrypted_account_data_enc, a.request_id,
       a.created_at, a.activated_at, a.closed_at, a.updated_at, a.version`;

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
