import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The whole data model of ARCHITECTURE.md. Columns ending in `_enc` hold AES-256-GCM ciphertext
 * (`v1.<kid>.<iv>.<ct>`); columns ending in `_bidx` hold keyed HMAC blind indexes.
 */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      create table accounts (
        id uuid primary key,
        partner_id text not null,
        program_code text not null,
        account_type text not null check (account_type in ('consumer', 'business')),
        status text not null check (status in ('pending', 'normal', 'locked', 'closed')),
        status_reason text null,
        kyc_pending_gate text not null default 'none' check (kyc_pending_gate in ('none', 'manual')),
        account_cycle_day smallint null check (account_cycle_day between 1 and 28),
        currency char(3) not null,
        identity_kind text not null check (identity_kind in ('ssn', 'itin', 'ssnSuffix', 'matricula', 'none')),
        encrypted_account_data_enc text null,
        request_id text null,
        created_at timestamptz not null default now(),
        activated_at timestamptz null,
        closed_at timestamptz null,
        updated_at timestamptz not null default now(),
        version integer not null default 1
      )`);
    await q.query(`create index accounts_partner_program_idx on accounts (partner_id, program_code)`);

    await q.query(`
      create table users (
        id uuid primary key,
        account_id uuid not null references accounts(id),
        is_primary boolean not null default true,
        status text not null,
        first_name_enc text not null,
        middle_name_enc text null,
        last_name_enc text not null,
        date_of_birth_enc text not null,
        ssn_enc text null,
        ssn_suffix_enc text null,
        itin_enc text null,
        matricula_enc text null,
        email_enc text null,
        ssn_bidx text null,
        itin_bidx text null,
        matricula_bidx text null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    await q.query(`create index users_account_idx on users (account_id)`);
    await q.query(`create index users_ssn_bidx_idx on users (ssn_bidx) where ssn_bidx is not null`);
    await q.query(`create index users_itin_bidx_idx on users (itin_bidx) where itin_bidx is not null`);

    await q.query(`
      create table user_addresses (
        id uuid primary key,
        user_id uuid not null references users(id),
        type text not null check (type in ('home', 'business', 'mailing')),
        is_default boolean not null default false,
        address_enc text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (user_id, type)
      )`);

    await q.query(`
      create table user_phones (
        id uuid primary key,
        user_id uuid not null references users(id),
        phone_type text not null check (phone_type in ('mobile', 'home', 'work', 'business')),
        is_default boolean not null default false,
        number_enc text not null,
        number_bidx text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (user_id, phone_type)
      )`);

    // One row per (account, key) that SERVICE.md's limits count: SSN, ITIN, default phone.
    await q.query(`
      create table account_limit_keys (
        account_id uuid not null references accounts(id),
        key_kind text not null check (key_kind in ('ssn', 'itin', 'phone')),
        key_bidx text not null,
        program_code text not null,
        account_type text not null,
        created_at timestamptz not null default now(),
        primary key (account_id, key_kind)
      )`);
    await q.query(`create index account_limit_keys_lookup_idx on account_limit_keys (program_code, key_kind, key_bidx)`);

    await q.query(`
      create table purses (
        id uuid primary key,
        account_id uuid not null references accounts(id),
        purse_type text not null check (purse_type in ('primary')),
        currency char(3) not null,
        available_balance numeric(18, 2) not null default 0,
        ledger_balance numeric(18, 2) not null default 0,
        created_at timestamptz not null default now()
      )`);
    await q.query(`create unique index purses_one_primary_idx on purses (account_id) where purse_type = 'primary'`);

    await q.query(`
      create table payment_instruments (
        id uuid primary key,
        account_id uuid not null references accounts(id),
        user_id uuid not null references users(id),
        type text not null default 'virtual',
        status text not null check (status in ('active', 'inactive', 'blocked', 'replaced', 'closed')),
        last4 char(4) not null,
        expiration_date char(7) not null,
        embossed_name text not null,
        embossed_business_name text null,
        replaced_by uuid null references payment_instruments(id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    await q.query(`create index payment_instruments_account_idx on payment_instruments (account_id)`);

    await q.query(`
      create table business_profiles (
        account_id uuid primary key references accounts(id),
        business_name text not null,
        business_type text not null,
        data jsonb not null,
        business_tax_id_enc text null,
        business_tax_id_last4 char(4) null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);

    await q.query(`
      create table scan_captures (
        id uuid primary key,
        partner_id text not null,
        program_code text not null,
        id_type text not null,
        id_number_enc text not null,
        id_number_bidx text not null,
        issuing_country text not null,
        status text not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        used_at timestamptz null,
        used_by_account_id uuid null
      )`);

    await q.query(`
      create table idempotency_keys (
        partner_id text not null,
        program_code text not null,
        request_id text not null,
        operation text not null,
        fingerprint text not null,
        recovery_point text not null default 'started',
        request_enc text null,
        state jsonb not null default '{}'::jsonb,
        account_id uuid null,
        response_status integer null,
        response_body text null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        expires_at timestamptz not null,
        primary key (partner_id, program_code, request_id)
      )`);
    await q.query(`create index idempotency_keys_expiry_idx on idempotency_keys (expires_at)`);

    await q.query(`
      create table outbox_events (
        id uuid primary key,
        partner_id text not null,
        program_code text not null,
        account_id uuid null,
        event_type text not null,
        payload jsonb not null,
        occurred_at timestamptz not null default now(),
        dispatched_at timestamptz null,
        delivered_at timestamptz null,
        attempts integer not null default 0,
        next_attempt_at timestamptz null,
        dead boolean not null default false
      )`);
    await q.query(`create index outbox_events_pending_idx on outbox_events (next_attempt_at) where delivered_at is null and dead = false`);

    await q.query(`
      create table webhook_deliveries (
        id bigserial primary key,
        event_id uuid not null references outbox_events(id),
        attempt integer not null,
        url text not null,
        status_code integer null,
        error text null,
        duration_ms integer not null,
        attempted_at timestamptz not null default now()
      )`);
    await q.query(`create index webhook_deliveries_event_idx on webhook_deliveries (event_id)`);

    await q.query(`
      create table care_audit (
        id bigserial primary key,
        account_id uuid not null references accounts(id),
        actor text not null,
        action text not null,
        before jsonb not null,
        after jsonb not null,
        detail jsonb not null default '{}'::jsonb,
        at timestamptz not null default now()
      )`);
    await q.query(`create index care_audit_account_idx on care_audit (account_id, at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'care_audit',
      'webhook_deliveries',
      'outbox_events',
      'idempotency_keys',
      'scan_captures',
      'business_profiles',
      'payment_instruments',
      'purses',
      'account_limit_keys',
      'user_phones',
      'user_addresses',
      'users',
      'accounts',
    ]) {
      await q.query(`drop table if exists ${table}`);
    }
  }
}
