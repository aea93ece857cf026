import { FieldCipher } from '../src/infrastructure/crypto/field-cipher';
import { KeyStore } from '../src/infrastructure/crypto/key-store';
import { reencrypt } from '../src/keys-reencrypt';
import { USER_CIPHER_CONTEXT } from '../src/modules/user/repositories/user.repository';
import { EnrollmentRequestFactory, uniquePhone } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

interface Enrolled {
  accountId: string;
  userId: string;
}

/**
 * Issue 13: a user field's encryption context binds its table, column and row, so a ciphertext
 * moved to another row does not decrypt. Reads go through the encryption partner, whose answers
 * carry the decrypted user data (other partners' answers omit it and decrypt nothing). Such a read answers the generic 500 (the data is
 * corrupt; no retry helps) and the log line names the error, never a value.
 */
describe('Encryption context binds the row (e2e)', () => {
  const logLines: string[] = [];
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('row_bound_encryption', { env: { LOG_LEVEL: 'info', JOBS_ENABLED: 'false' }, logLines });
  });

  afterAll(async () => {
    await app.close();
  });

  async function enroll(lastName: string, phone: string): Promise<Enrolled> {
    const res = await app
      .client('secure')
      .post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { lastName, phoneNumbers: [{ phoneType: 'mobile', number: phone }] } }));
    expect(res.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    const account = res.body.account as { accountIdentifier: string };
    const user = res.body.user as { userIdentifier: string };
    return { accountId: account.accountIdentifier, userId: user.userIdentifier };
  }

  async function sql(text: string, values: unknown[]): Promise<void> {
    const db = await app.db();
    try {
      await db.query(text, values);
    } finally {
      await db.end();
    }
  }

  function expectGeneric500(res: { status: number; body: { responseDetails: Array<Record<string, unknown>> } }, ...secrets: string[]): void {
    expect(res.status).toBe(500);
    expect(res.body.responseDetails).toEqual([
      { code: 500, subCode: 0, description: 'Unexpected error', docUrl: expect.stringMatching(/\/docs\/errors#500-0$/) },
    ]);
    const text = JSON.stringify(res.body);
    for (const secret of secrets) expect(text).not.toContain(secret);
  }

  it('a name swapped between two users in SQL: both reads refuse (500, generic envelope); the log names the error, no value', async () => {
    const a = await enroll('Swapfirstrow', uniquePhone());
    const b = await enroll('Swapsecondrow', uniquePhone());
    expect((await app.client('secure').get(`${ENROLL}/accounts/${a.accountId}`)).status).toBe(200);
    logLines.length = 0;
    await sql(
      `update users u set last_name_enc = o.last_name_enc from users o
        where (u.id, o.id) in (($1::uuid, $2::uuid), ($2::uuid, $1::uuid))`,
      [a.userId, b.userId],
    );
    for (const account of [a, b]) {
      expectGeneric500(await app.client('secure').get(`${ENROLL}/accounts/${account.accountId}`, { noRetry: true }), 'Swapfirstrow', 'Swapsecondrow');
    }
    const log = logLines.join('');
    expect(log).toContain('UnreadableCiphertextError');
    expect(log.toLowerCase()).not.toContain('swapfirstrow');
    expect(log.toLowerCase()).not.toContain('swapsecondrow');
  });

  it('a phone number swapped between two phone rows: the users read refuses (500)', async () => {
    const phones = [uniquePhone(), uniquePhone()];
    const a = await enroll('Phoneowner', phones[0]);
    const b = await enroll('Phoneowner', phones[1]);
    await sql(
      `update user_phones p set number_enc = o.number_enc from user_phones o
        where (p.user_id, o.user_id) in (($1::uuid, $2::uuid), ($2::uuid, $1::uuid))`,
      [a.userId, b.userId],
    );
    expectGeneric500(await app.client('secure').get(`/v1/programs/sandbox/accounts/${a.accountId}/users`, { noRetry: true }), ...phones);
  });

  it('an address copied onto another user of the same account type: refused too', async () => {
    const a = await enroll('Addressowner', uniquePhone());
    const b = await enroll('Addressowner', uniquePhone());
    await sql(`update user_addresses set address_enc = (select address_enc from user_addresses where user_id = $1) where user_id = $2`, [a.userId, b.userId]);
    expect((await app.client('secure').get(`/v1/programs/sandbox/accounts/${a.accountId}/users`)).status).toBe(200);
    expectGeneric500(await app.client('secure').get(`/v1/programs/sandbox/accounts/${b.accountId}/users`, { noRetry: true }));
  });

  it('values written before rows were bound (v1: the column only) stay readable', async () => {
    const a = await enroll('Legacyrow', uniquePhone());
    const cipher = app.app.get(FieldCipher, { strict: false });
    const legacy = cipher.encrypt('Legacyvalue', USER_CIPHER_CONTEXT.lastName);
    expect(legacy).toMatch(/^v1\./);
    await sql(`update users set last_name_enc = $1 where id = $2`, [legacy, a.userId]);
    const got = await app.client('secure').get(`/v1/programs/sandbox/accounts/${a.accountId}/users`);
    expect(got.status).toBe(200);
    const stored = await app.db();
    try {
      const { rows } = await stored.query<{ last_name_enc: string }>('select last_name_enc from users where id = $1', [a.userId]);
      expect(rows[0].last_name_enc).toBe(legacy);
    } finally {
      await stored.end();
    }
  });

  it('npm run keys:reencrypt rewrites v1 values as row-bound v2 (still readable, no longer movable) and leaves v2 values alone', async () => {
    const a = await enroll('Upgraderow', uniquePhone());
    const b = await enroll('Upgraderow', uniquePhone());
    const cipher = app.app.get(FieldCipher, { strict: false });
    // The same v1 value in both rows: readable in either until it is rewritten.
    const legacy = cipher.encrypt('Legacyshared', USER_CIPHER_CONTEXT.lastName);
    await sql(`update users set last_name_enc = $1 where id = any($2::uuid[])`, [legacy, [a.userId, b.userId]]);
    const keys = await KeyStore.from(undefined, true, process.env.TEST_RUN_DIR as string);
    const db = await app.db();
    try {
      const first = await reencrypt(db, keys);
      expect(first.users).toBeGreaterThanOrEqual(2);
      expect(await reencrypt(db, keys)).toEqual({ users: 0, user_addresses: 0, user_phones: 0 });
      const { rows } = await db.query<{ last_name_enc: string }>('select last_name_enc from users where id = any($1::uuid[])', [[a.userId, b.userId]]);
      expect(rows.map((row) => row.last_name_enc)).toEqual([expect.stringMatching(/^v2\./), expect.stringMatching(/^v2\./)]);
    } finally {
      await db.end();
    }
    for (const account of [a, b]) expect((await app.client('secure').get(`${ENROLL}/accounts/${account.accountId}`)).status).toBe(200);
    await sql(`update users set last_name_enc = (select last_name_enc from users where id = $1) where id = $2`, [a.userId, b.userId]);
    expectGeneric500(await app.client('secure').get(`${ENROLL}/accounts/${b.accountId}`, { noRetry: true }), 'Legacyshared');
  });
});
