import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

/** CONTRACT section 2 (2026-11-25): at most 50 field details, then one detail saying how many more failed. */
describe('Validation details are capped (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('validation_cap');
  });

  afterAll(async () => {
    await app.close();
  });

  it('60 unknown properties: 50 field details, then "10 more fields failed" with the code and subCode of the first left out and no field', async () => {
    const extra = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`unexpected${String(i).padStart(2, '0')}`, i]));
    const res = await app.client().post('/v1/programs/sandbox/enrollments', { ...EnrollmentRequestFactory.build(), ...extra }, { noRetry: true });
    expect(res.status).toBe(400);
    const details = res.body.responseDetails as Array<{ code: number; subCode: number; description: string; field?: string }>;
    expect(details).toHaveLength(51);
    expect(details.slice(0, 50).every((detail) => detail.code === 100 && detail.subCode === 2 && typeof detail.field === 'string')).toBe(true);
    expect(details[50]).toEqual(expect.objectContaining({ code: 100, subCode: 2, description: '10 more fields failed' }));
    expect(details[50].field).toBeUndefined();
  });

  it('50 failures exactly: no summary detail', async () => {
    const extra = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`unexpected${String(i).padStart(2, '0')}`, i]));
    const res = await app.client().post('/v1/programs/sandbox/enrollments', { ...EnrollmentRequestFactory.build(), ...extra }, { noRetry: true });
    expect(res.status).toBe(400);
    expect(res.body.responseDetails).toHaveLength(50);
  });
});
