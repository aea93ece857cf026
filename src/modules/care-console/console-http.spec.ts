import { isConsolePath, withSecure } from './console-http';

describe(withSecure.name, () => {
  it('marks the console session cookie Secure once, and leaves other cookies alone', () => {
    expect(withSecure(['care_session=abc; Path=/care; HttpOnly', 'other=1; Path=/'])).toEqual([
      'care_session=abc; Path=/care; HttpOnly; Secure',
      'other=1; Path=/',
    ]);
    expect(withSecure('care_session=abc; Path=/care; Secure')).toEqual(['care_session=abc; Path=/care; Secure']);
    expect(withSecure(undefined)).toBeUndefined();
  });
});

describe(isConsolePath.name, () => {
  it.each([
    ['/care', true],
    ['/care?x=1', true],
    ['/care/accounts/1', true],
    ['/careers', false],
    ['/v1/care/accounts/1', false],
    ['/%63are/sign-in', true],
    ['/c%61re', true],
    ['/care%3Fx', false],
    ['/%zzcare', false],
  ])('%s → %s', (url, expected) => {
    expect(isConsolePath(url)).toBe(expected);
  });
});
