import { errorEnvelope, leadingCode, successEnvelope, validEnvelope } from './envelope';

describe(leadingCode.name, () => {
  it('reads the code and subCode each envelope leads with, as it is serialised', () => {
    expect(leadingCode(JSON.stringify(successEnvelope('r-1.a:b', { account: { id: 1 } })))).toEqual({ code: 0, subCode: 0 });
    expect(leadingCode(JSON.stringify(validEnvelope('r-2')))).toEqual({ code: 0, subCode: 0 });
    const decline = errorEnvelope('r-3', [{ code: 2, subCode: 60, description: 'Declined' }], 'https://api.example', { account: {} });
    expect(leadingCode(JSON.stringify(decline))).toEqual({ code: 2, subCode: 60 });
    const held = errorEnvelope(
      'r-4',
      [
        { code: 5, subCode: 370, description: 'Held' },
        { code: 9, subCode: 9, description: 'x' },
      ],
      'https://api.example',
    );
    expect(leadingCode(JSON.stringify(held))).toEqual({ code: 5, subCode: 370 });
  });

  it('names no code for text that is not such an envelope', () => {
    for (const text of [
      '',
      '{}',
      '{"access_token":"x"}',
      '{"responseDetails":[{"code":0,"subCode":0}]}',
      ' {"requestId":"r","responseDetails":[{"code":1,"subCode":2}]}',
    ]) {
      expect(leadingCode(text)).toBeUndefined();
    }
  });
});
