/**
 * Baseline (c) of the user-update scenario: the essential work of a user update (the bench's: the
 * home address, made the default, and the email), written by hand on a bare Fastify route with
 * `pg`, on the service's own rows. It answers "how fast can a user update go on this machine and
 * database", next to (a), the same route running the service's reads with trivial writes, which
 * issue 11's goal is set against (user update ≥ 60% of (a)).
 *
 * Per request, on one pooled connection: BEGIN with the advisory locks of the account and the user
 * (one simple statement, the service's lock keys); the account locked with its user and the id of
 * the user's address of that type (one prepared select); the address and email encrypted with the
 * service's FieldCipher over the service's keys and column contexts (so the rows stay readable by
 * the service); the address, the user and the outbox event written (one prepared writable CTE);
 * COMMIT; the answer built in memory in the service's envelope. Like (c) of the enrollment and the
 * replay, it checks no bearer token and validates nothing (no DTO, no NFC), and it handles only what
 * the bench sends (an address of a type the user has, and an email): anything else is answered 409.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { successEnvelope } from '../src/common/http/envelope';
import { FieldCipher } from '../src/infrastructure/crypto/field-cipher';
import type { KeyStore } from '../src/infrastructure/crypto/key-store';
import { LockNames } from '../src/infrastructure/database/lock.service';
import { prepared } from '../src/infrastructure/database/prepared-statements';
import { USER_CIPHER_CONTEXT } from '../src/modules/user/repositories/user.repository';
import { advisoryXactLocks } from './handwritten-enrollment';

/** What one request of (c) does, in order; the report prints it. */
export const HANDWRITTEN_USER_UPDATE_WORK = [
  'JSON body parsed',
  "begin with the account's and the user's advisory xact locks, one statement",
  "the account locked (FOR UPDATE) with the user and its address's id, one prepared select",
  "address and email encrypted (AES-256-GCM, the service's keys and contexts)",
  'address, user and outbox event written, one prepared writable CTE',
  'commit; the answer built in memory',
] as const;

const LOCKED_SQL = prepared(`select a.status, u.id as user_id, u.is_primary, u.status as user_status,
       (select ad.id from user_addresses ad where ad.user_id = u.id and ad.type = $5) as address_id
  from accounts a
  join users u on u.account_id = a.id and u.id = $4
 where a.id = $1 and a.partner_id = $2 and a.program_code = $3
   for update of a`);

/** The bench partner has no webhook in the service's run either: its events are stored as not deliverable. */
const WRITE_SQL = prepared(`with ad as (
       update user_addresses
          set address_enc = case when id = $2::uuid then $3 else address_enc end,
              is_default = case when $4::boolean then id = $2::uuid else is_default end,
              updated_at = now()
        where user_id = $1 and (id = $2::uuid or $4::boolean)),
     us as (update users set email_enc = $5, updated_at = now() where id = $1)
insert into outbox_events (id, partner_id, program_code, account_id, event_type, payload, next_attempt_at, dead)
values ($6, $7, $8, $9, 'userUpdated', $10::jsonb, null, true)`);

interface Address {
  type: string;
  isDefault?: boolean;
  addressLine1: string;
  addressLine2?: string;
  city: string;
  state: string;
  zipCode: string;
  countryCode?: string;
}

interface LockedRow {
  status: string;
  user_id: string;
  is_primary: boolean;
  user_status: string;
  address_id: string | null;
}

export interface HandwrittenUserUpdateAnswer {
  status: number;
  body: string;
}

export class HandwrittenUserUpdate {
  private readonly cipher: FieldCipher;

  constructor(
    /** Its search_path starts with the service's schema. */
    private readonly pool: Pool,
    keys: KeyStore,
    private readonly partnerId: string,
  ) {
    this.cipher = new FieldCipher(keys);
  }

  async update(programCode: string, accountId: string, userId: string, body: unknown): Promise<HandwrittenUserUpdateAnswer> {
    const data = (body as { encryptedUserData?: { address?: Address; email?: { emailAddress?: string } } } | null)?.encryptedUserData;
    const address = data?.address;
    const email = data?.email?.emailAddress;
    if (!address || typeof email !== 'string') return { status: 409, body: '{"error":"(c) handles an address and an email"}' };
    const client = await this.pool.connect();
    try {
      await client.query(`begin; ${advisoryXactLocks([LockNames.account(accountId), LockNames.user(userId)])}`);
      const row = ((await client.query(LOCKED_SQL, [accountId, this.partnerId, programCode, userId, address.type])) as { rows: LockedRow[] }).rows[0];
      if (!row || row.status === 'locked' || !row.address_id) {
        await client.query('rollback');
        return { status: 409, body: '{"error":"(c) handles an unlocked account and an address of a type the user has"}' };
      }
      const { addressLine1, addressLine2, city, state, zipCode, countryCode = 'US' } = address;
      const addressEnc = this.cipher.encryptJson(
        { addressLine1, addressLine2, city, state, zipCode, countryCode },
        USER_CIPHER_CONTEXT.address,
        row.address_id,
      );
      const emailEnc = this.cipher.encrypt(email, USER_CIPHER_CONTEXT.email, userId);
      const event = JSON.stringify({ userIdentifier: userId, changed: ['address', 'email'] });
      await client.query(WRITE_SQL, [
        userId,
        row.address_id,
        addressEnc,
        address.isDefault === true,
        emailEnc,
        randomUUID(),
        this.partnerId,
        programCode,
        accountId,
        event,
      ]);
      await client.query('commit');
      const user = { userIdentifier: row.user_id, isPrimaryAccountHolder: row.is_primary, status: row.user_status };
      return { status: 200, body: JSON.stringify(successEnvelope(randomUUID(), { user })) };
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
