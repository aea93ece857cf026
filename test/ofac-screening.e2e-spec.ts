import * as path from 'node:path';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

/**
 * CONTRACT section 12: with OFAC_LIST_DIR set, the enrollee's name is screened against the SDN
 * list (individuals' primary names and aliases, accent-folded, token order free, Jaro-Winkler);
 * a match holds the enrollment exactly as `Ofachold` does. Fixture: test/fixtures/ofac (made-up names).
 */
describe('OFAC screening against an SDN list (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('ofac_screening', { env: { OFAC_LIST_DIR: path.join(__dirname, 'fixtures', 'ofac') } });
  });

  afterAll(async () => {
    await app.close();
  });

  const enroll = (firstName: string, lastName: string, middleName?: string) =>
    app.client().post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { firstName, lastName, middleName } }));

  it.each([
    ['primary name', 'Bartholomew', 'Quillfeather', 'Ignatius'],
    ['alias', 'Ignatius', 'Thornwick', undefined],
    ['accented spelling of an unaccented entry', 'José', 'Núñez Valderramos', undefined],
    ['one-letter variant', 'Odalys', 'Vanterpol', undefined],
  ])('a hit on the %s holds the enrollment: 5/370, pending/ofacReview, no card', async (_case, first, last, middle) => {
    const res = await enroll(first, last, middle);
    expect(res.status).toBe(200);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    expect(res.body.account).toMatchObject({ status: 'pending', statusReason: 'ofacReview', accountCycleDay: null });
    expect(res.body.paymentInstruments).toEqual([]);
  });

  it.each([
    ['an entity of the list', 'Halvorsen', 'Bristow'],
    ['a vessel of the list', 'Marguerite', 'Ashcombe'],
    ['an unrelated name', 'Maria', 'Gonzalez'],
    ['a shared last name only', 'Jane', 'Quillfeather'],
  ])('%s is not a hit: the enrollment completes', async (_case, first, last) => {
    const res = await enroll(first, last);
    expect(res.status).toBe(200);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(res.body.account).toMatchObject({ status: 'normal' });
  });

  async function auditOf(accountId: string): Promise<Array<{ action: string; actor: string; detail: Record<string, unknown> }>> {
    const res = await app.client('care').get(`/v1/care/accounts/${accountId}/audit`);
    expect(res.status).toBe(200);
    return res.body.auditTrail as Array<{ action: string; actor: string; detail: Record<string, unknown> }>;
  }

  it('the care audit trail records the SDN entry number, the score and the kind of name matched (never the listed name)', async () => {
    const held = await enroll('Ignatius', 'Thornwick');
    const trail = await auditOf((held.body.account as { accountIdentifier: string }).accountIdentifier);
    expect(trail).toEqual([
      expect.objectContaining({ action: 'ofacHold', actor: 'ofac-screening', detail: { sdnEntNum: 9002, matchKind: 'alias', score: expect.any(Number) } }),
    ]);
    expect(trail[0]?.detail.score as number).toBeGreaterThanOrEqual(0.92);
    expect(JSON.stringify(trail)).not.toMatch(/thornwick|quillfeather/i);
  });

  it('the same record when the enrollment runs phase by phase (sandbox after:accountWritten, then the identical retry)', async () => {
    const request = EnrollmentRequestFactory.build({ encryptedUserData: { firstName: 'Bartholomew', middleName: 'Ignatius', lastName: 'Quillfeather' } });
    const interrupted = await app.client().post(ENROLL, request, { headers: { 'x-sandbox-fault': 'after:accountWritten' }, noRetry: true });
    expect(interrupted.status).toBe(503);
    const retry = await app.client().post(ENROLL, request);
    expect(retry.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    const trail = await auditOf((retry.body.account as { accountIdentifier: string }).accountIdentifier);
    expect(trail).toEqual([expect.objectContaining({ action: 'ofacHold', detail: expect.objectContaining({ sdnEntNum: 9002, matchKind: 'primary' }) })]);
  });

  it('a held enrollment is completed by care ofacClear', async () => {
    const held = await enroll('Soren', 'Osterhagen', 'Grunewald');
    expect(held.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    const id = (held.body.account as { accountIdentifier: string }).accountIdentifier;
    const cleared = await app.client('care').post(`/v1/care/accounts/${id}/ofacClear`, {});
    expect(cleared.status).toBe(200);
    expect(cleared.body.account).toMatchObject({ status: 'normal', statusReason: null });
    expect(cleared.body.paymentInstruments).toHaveLength(1);
  });
});
