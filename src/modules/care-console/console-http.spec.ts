import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import { isConsolePath, sessionStore, withSecure } from './console-http';

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

describe(sessionStore.name, () => {
  it("logs a failed prune through the app's logger, by name and SQLSTATE only, not with console.error", async () => {
    const failure = Object.assign(new Error('terminating connection; row care-secret-value'), { code: '57P01' });
    // A pool that never connects: its query fails as a prune during an outage would.
    const pool = Object.assign(new Pool(), { query: () => Promise.reject(failure) });
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const printed = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const store = sessionStore(pool, 'app', 900);
    try {
      store.pruneSessions();
      await new Promise((resolve) => setImmediate(resolve));
      expect(logged.mock.calls).toEqual([[{ errorName: 'Error', errorCode: '57P01' }, 'care session store failed']]);
      expect(printed).not.toHaveBeenCalled();
    } finally {
      await store.close();
      logged.mockRestore();
      printed.mockRestore();
    }
  });
});
