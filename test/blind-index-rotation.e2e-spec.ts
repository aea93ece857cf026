import { Client } from 'pg';
import { generateKeyMaterial, KeyMaterial, KeyStore, rotateKeyMaterial } from '../src/infrastructure/crypto/key-store';
import { reindex } from '../src/keys-reindex';
import { EnrollmentRequestFactory, uniqueSsn } from './support/enrollment-factory';
import { startTestApp, TestApp, uniqueSchema } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

/**
 * Issue 13: the blind-index key is versioned (`key_versions`) and rotated by re-indexing. A service
 * started with another key refuses to start; `keys:reindex` moves every `_bidx` column and the
 * recorded id together; limits keep counting, and requestIds stored before still replay.
 */
describe('Blind-index key rotation by re-indexing (e2e)', () => {
  const schema = uniqueSchema('blind_index_rotation');
  let before: KeyMaterial;
  let after: KeyMaterial;
  const start = (keys: KeyMaterial): Promise<TestApp> => startTestApp('blind_index_rotation', { schema, env: { SERVICE_KEYS: JSON.stringify(keys) } });
  async function withDb<T>(work: (db: Client) => Promise<T>): Promise<T> {
    const db = new Client({ connectionString: process.env.DATABASE_URL, options: `-c search_path=${schema}` });
    await db.connect();
    try {
      return await work(db);
    } finally {
      await db.end();
    }
  }

  beforeAll(async () => {
    before = await generateKeyMaterial();
    after = await rotateKeyMaterial(before, { blindIndex: true });
  });

  it('refuses to start with another blind-index key; after keys:reindex the limits and stored answers work under the new key', async () => {
    const ssn = uniqueSsn();
    const first = EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn } } });
    const scanned = `MX${Date.now().toString().slice(-8)}`;
    let onboardingID: string;
    let app = await start(before);
    try {
      expect((await app.client().post(ENROLL, first)).body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
      const scan = await app
        .client()
        .post('/v1/kycGates/scanCapture', { programCode: 'sandbox', idType: 'matricula', idNumber: scanned, issuingCountry: 'MX', frontImage: 'aW1n' });
      expect(scan.status).toBe(200);
      onboardingID = scan.body.onboardingID as string;
    } finally {
      await app.close();
    }
    const oldIndexes = await withDb(async (db) => (await db.query<{ ssn_bidx: string }>('select ssn_bidx from users')).rows.map((r) => r.ssn_bidx));

    await expect(start(after)).rejects.toThrow(
      /blindIndexKey \(bik-[0-9a-f]+\) is not the key the stored blind indexes were computed under \(bik-[0-9a-f]+\): run npm run keys:reindex/,
    );

    const keys = await KeyStore.from(JSON.stringify(after), false, process.env.TEST_RUN_DIR as string);
    const report = await withDb((db) => reindex(db, keys));
    expect(report).toMatchObject({ from: expect.stringMatching(/^bik-/), to: keys.blindIndexKeyId, users: 1, phones: 1, scans: 1, limitKeys: 2, unmapped: 0 });
    const newIndexes = await withDb(async (db) => (await db.query<{ ssn_bidx: string }>('select ssn_bidx from users')).rows.map((r) => r.ssn_bidx));
    expect(newIndexes).toHaveLength(1);
    expect(newIndexes[0]).not.toBe(oldIndexes[0]);
    // Idempotent: a second run finds nothing to do.
    expect(await withDb((db) => reindex(db, keys))).toMatchObject({ users: 0, limitKeys: 0 });

    app = await start(after);
    try {
      // The SSN limit (1 active consumer account) still counts the account enrolled before.
      const second = await app.client().post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn } } }));
      expect(second.body.responseDetails[0]).toMatchObject({ code: 2, subCode: 60 });
      // The identical retry of a requestId stored under the old key replays.
      const replay = await app.client().post(ENROLL, first);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
      // A scan captured before matches its Matricula number by the re-indexed value (else 400/660).
      const matricula = await app
        .client()
        .post(ENROLL, EnrollmentRequestFactory.build({ onboardingID, encryptedUserData: { identifyingData: { ssn: undefined, matriculaId: scanned } } }));
      expect(matricula.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    } finally {
      await app.close();
    }
  });
});
