import { censorSensitive } from './logging';

describe(censorSensitive.name, () => {
  it('censors sensitive keys at any depth and in arrays, leaving the rest', () => {
    const input = { eventId: 'e1', user: { profile: { lastName: 'Núñez', tags: [{ ssn: '123456789', kind: 'x' }] } }, count: 2 };
    expect(censorSensitive(input)).toEqual({
      eventId: 'e1',
      user: { profile: { lastName: '[redacted]', tags: [{ ssn: '[redacted]', kind: 'x' }] } },
      count: 2,
    });
  });

  it('censors credentials in a header object, should one ever be logged', () => {
    const line = { req: { headers: { authorization: 'Bearer eyJ', cookie: 'sid=1', accept: '*/*' } }, res: { headers: { 'set-cookie': ['sid=2'] } } };
    expect(censorSensitive(line)).toEqual({
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]', accept: '*/*' } },
      res: { headers: { 'set-cookie': '[redacted]' } },
    });
  });

  it('never mutates the logged object and returns it as is when nothing is sensitive', () => {
    const clean = { requestId: 'r', nested: { statusCode: 200 } };
    expect(censorSensitive(clean)).toBe(clean);
    const dirty = { encryptedUserData: { firstName: 'José' } };
    censorSensitive(dirty);
    expect(dirty.encryptedUserData.firstName).toBe('José');
  });

  it('censors a subtree nested deeper than it walks, and class instances like any object', () => {
    let deep: Record<string, unknown> = { ssn: '123456789' };
    for (let i = 0; i < 20; i += 1) deep = { a: deep };
    expect(JSON.stringify(censorSensitive(deep))).not.toContain('123456789');
    class Dto {
      email = 'jose@example.com';
    }
    expect(censorSensitive({ dto: new Dto() })).toEqual({ dto: { email: '[redacted]' } });
  });
});
