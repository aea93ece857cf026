import { Pool, QueryConfig } from 'pg';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import type { FieldCipher } from '../../infrastructure/crypto/field-cipher';
import { WriteBatch } from '../../infrastructure/database/write-batch';
import type { DatabasePools } from '../../infrastructure/database/database-pools';
import type { CallConnection } from '../../infrastructure/database/call-connection';
import { statementConfig } from '../../infrastructure/database/prepared-statements';
import { answerContext, FIND_SQL, IdempotencyRecord, IdempotencyStore } from './idempotency.store';
import { mockOf } from '../../../test/support/mock-of';

const KEY = { partnerId: 'acme', programCode: 'sandbox', requestId: 'r-1' };

function harness(rows: IdempotencyRecord[] = []) {
  const sent: QueryConfig[] = [];
  const client = {
    query: jest.fn(async (config: QueryConfig) => {
      sent.push(config);
      return { rows };
    }),
  };
  const runnerOf = () => mockOf<QueryRunner>({ connect: jest.fn(async () => client), release: jest.fn(async () => undefined) });
  const pooled = runnerOf();
  const dataSource = mockOf<DataSource>({ createQueryRunner: jest.fn(() => pooled) });
  // The data source's own manager has no query runner: a lone read takes a pooled connection.
  const loneManager = mockOf<EntityManager>({});
  Object.assign(loneManager, { dataSource });
  Object.assign(dataSource, { manager: loneManager });
  const callRunner = runnerOf();
  const callManager = mockOf<EntityManager>({});
  Object.assign(callManager, { queryRunner: callRunner });
  const config = { env: { idempotencyRetentionDays: 30 } } as AppConfig;
  const cipher = mockOf<FieldCipher>({
    encrypt: jest.fn((plaintext: string, context?: string) => `enc(${plaintext}|${context})`),
    decrypt: jest.fn((value: string, context?: string) => `dec(${value}|${context})`),
  });
  // The app's pg pool: a lone read is pg's `pool.query`, no TypeORM query runner around it.
  const pool = new Pool();
  jest.spyOn(pool, 'query').mockImplementation((async (config: QueryConfig) => client.query(config)) as never);
  const pools = mockOf<DatabasePools>({ pool: jest.fn(() => pool) });
  return { sut: new IdempotencyStore(dataSource, config, cipher, pools), sent, pool, pooled, callRunner, callManager, cipher };
}

describe(IdempotencyStore.name, () => {
  it("find without a manager: one named read through the app pool's pool.query; the stored answer decrypted under its requestId's context", async () => {
    const { sut, sent, pool, pooled } = harness([{ fingerprint: 'fp', responseStatus: 200, responseBody: 'v1.sealed', requestDigest: 'rd' }]);
    await expect(sut.find(KEY)).resolves.toEqual({
      fingerprint: 'fp',
      responseStatus: 200,
      responseBody: `dec(v1.sealed|${answerContext(KEY)})`,
      requestDigest: 'rd',
    });
    expect(sent).toEqual([{ name: expect.stringMatching(/^s_/), text: FIND_SQL, values: ['acme', 'sandbox', 'r-1'] }]);
    expect(pool.query).toHaveBeenCalledTimes(1);
    expect(pooled.connect).not.toHaveBeenCalled();
  });

  it("find with the call's manager: on the call's connection, which stays the call's; nothing found is null", async () => {
    const { sut, pooled, callRunner, callManager } = harness([]);
    await expect(sut.find(KEY, callManager)).resolves.toBeNull();
    expect(callRunner.connect).toHaveBeenCalled();
    expect(callRunner.release).not.toHaveBeenCalled();
    expect(pooled.connect).not.toHaveBeenCalled();
  });

  it('an answer stored before encryption (JSON text) is returned as it is', async () => {
    const { sut, cipher } = harness([{ fingerprint: 'fp', responseStatus: 200, responseBody: '{"a":1}', requestDigest: null }]);
    await expect(sut.find(KEY)).resolves.toMatchObject({ responseBody: '{"a":1}' });
    expect(cipher.decrypt).not.toHaveBeenCalled();
  });

  /** The call's session: its `rows`, the statement config CallConnection sends for it recorded in `sent`. */
  const callOf = (rows: object[], sent: QueryConfig[]) =>
    mockOf<CallConnection>({
      rows: jest.fn(async (text: string, values: readonly unknown[]) => {
        sent.push(statementConfig(text, values));
        return rows as never[];
      }) as never,
    });

  it('claim: one prepared statement on the call (its first), with the operation, fingerprint and retention; null when the requestId is new', async () => {
    const { sut } = harness([]);
    const sent: QueryConfig[] = [];
    await expect(sut.claim(callOf([], sent), KEY, 'enroll', 'fp')).resolves.toBeNull();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ name: expect.stringMatching(/^s_/), values: ['acme', 'sandbox', 'r-1', 'enroll', 'fp', 30] });
    expect(sent[0]?.text).toMatch(/on conflict \(partner_id, program_code, request_id\) do nothing/);
  });

  it('claim returns the record that already existed', async () => {
    const existing = { fingerprint: 'fp', responseStatus: null, responseBody: null, requestDigest: null };
    const { sut } = harness([]);
    await expect(sut.claim(callOf([existing], []), KEY, 'enroll', 'fp')).resolves.toEqual(existing);
  });

  it("stageAnswer adds the answer, encrypted under its requestId's context, to the call's batch, written once", () => {
    const { sut } = harness();
    const batch = new WriteBatch();
    sut.stageAnswer(batch, KEY, { status: 200, body: '{"ok":true}', requestDigest: 'rd' });
    const { sql, params } = batch.compose();
    expect(sql).toMatch(/^update idempotency_keys set response_status = \$4, response_body = \$5/);
    expect(sql).toMatch(/and response_body is null$/);
    expect(params).toEqual(['acme', 'sandbox', 'r-1', 200, `enc({"ok":true}|${answerContext(KEY)})`, 'rd']);
  });
});
