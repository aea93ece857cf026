import { isSuccess } from './scenarios';

describe('isSuccess (the bench counts only successes as throughput)', () => {
  const answer = (code: number, subCode: number) =>
    JSON.stringify({ requestId: 'r-1', responseDetails: [{ code, subCode, description: 'x' }], account: { status: 'normal' } });

  it('accepts a 200 whose first responseDetails code is 0', () => {
    expect(isSuccess(200, answer(0, 0))).toBe(true);
  });

  it('refuses a business decline with HTTP 200, an error status, and an answer without the envelope', () => {
    expect(isSuccess(200, answer(2, 60))).toBe(false);
    expect(isSuccess(200, answer(5, 370))).toBe(false);
    expect(isSuccess(400, answer(0, 0))).toBe(false);
    expect(isSuccess(200, '{"ok":true}')).toBe(false);
    // A value holding the text cannot fake it: its quotes are escaped.
    expect(isSuccess(200, JSON.stringify({ requestId: '"responseDetails":[{"code":0,', responseDetails: [{ code: 2 }] }))).toBe(false);
  });
});
