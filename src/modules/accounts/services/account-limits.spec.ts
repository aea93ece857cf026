import type { Account, AccountStatus, KycPendingGate } from '../entities/account.entity';
import { COUNTS, judgeLimits, type KeyCounts } from './account-limits.service';
import { DEFAULT_LIMITS } from '../../../config/service-config';

const counts = (active: number, lifetime: number, recent: string | null = null): KeyCounts => ({ active, lifetime, recent });
const account = (status: AccountStatus, kycPendingGate: KycPendingGate, activated: boolean): Pick<Account, 'activatedAt' | 'status' | 'kycPendingGate'> => ({
  status,
  kycPendingGate,
  activatedAt: activated ? new Date('2026-01-01T00:00:00Z') : null,
});

describe('the limit counting rule', () => {
  it.each<[string, ReturnType<typeof account>, boolean, boolean]>([
    ['normal, activated', account('normal', 'none', true), true, true],
    ['pending behind a KYC gate, activated (referred)', account('pending', 'manual', true), true, true],
    ['locked by care after activation', account('locked', 'none', true), false, true],
    ['locked by care with a gate open', account('locked', 'manual', true), true, true],
    ['closed after activation', account('closed', 'none', true), false, true],
    ['held for OFAC review (never activated)', account('pending', 'none', false), false, false],
    ['short of its bill cycle (never activated)', account('pending', 'none', false), false, false],
    ['declined at completion and closed (never activated)', account('closed', 'none', false), false, false],
  ])('%s: active %s, lifetime %s', (_label, a, active, lifetime) => {
    expect(COUNTS.active(a)).toBe(active);
    expect(COUNTS.lifetime(a)).toBe(lifetime);
  });
});

describe(judgeLimits.name, () => {
  const consumer = DEFAULT_LIMITS.consumer;

  it('a key is full when its count reached the limit (SERVICE.md consumer: SSN 1 active, 3 lifetime)', () => {
    expect(judgeLimits([{ kind: 'ssn', counts: counts(0, 2) }], consumer, 'consumer')).toBeNull();
    expect(judgeLimits([{ kind: 'ssn', counts: counts(1, 1, 'acc-9') }], consumer, 'consumer')).toEqual({
      error: 'ACTIVE_SSN_LIMIT',
      kind: 'ssn',
      scope: 'active',
      mostRecentAccountId: 'acc-9',
    });
    expect(judgeLimits([{ kind: 'ssn', counts: counts(0, 3) }], consumer, 'consumer')).toMatchObject({
      error: 'LIFETIME_SSN_LIMIT',
      scope: 'lifetime',
      mostRecentAccountId: null,
    });
  });

  it('the active limit is judged before the lifetime one', () => {
    expect(judgeLimits([{ kind: 'ssn', counts: counts(1, 3) }], consumer, 'consumer')?.error).toBe('ACTIVE_SSN_LIMIT');
  });

  it('keys are judged SSN, ITIN, then phone, whatever order they come in', () => {
    const breach = judgeLimits(
      [
        { kind: 'phone', counts: counts(2, 2) },
        { kind: 'itin', counts: counts(0, 3) },
      ],
      consumer,
      'consumer',
    );
    expect(breach).toMatchObject({ kind: 'itin', error: 'LIFETIME_SSN_LIMIT' });
  });

  it('phone limits have their own codes, and business ones theirs', () => {
    expect(judgeLimits([{ kind: 'phone', counts: counts(2, 2) }], consumer, 'consumer')?.error).toBe('ACTIVE_PHONE_LIMIT');
    expect(judgeLimits([{ kind: 'phone', counts: counts(0, 10) }], consumer, 'consumer')?.error).toBe('LIFETIME_PHONE_LIMIT');
    const businessLimits = DEFAULT_LIMITS.business;
    expect(judgeLimits([{ kind: 'phone', counts: counts(10, 10) }], businessLimits, 'business')?.error).toBe('ACTIVE_PHONE_LIMIT_BUSINESS');
    expect(judgeLimits([{ kind: 'phone', counts: counts(9, 20) }], businessLimits, 'business')?.error).toBe('LIFETIME_PHONE_LIMIT_BUSINESS');
    expect(judgeLimits([{ kind: 'ssn', counts: counts(9, 19) }], businessLimits, 'business')).toBeNull();
  });

  it('a limit of 0 refuses every enrollment of that key', () => {
    expect(judgeLimits([{ kind: 'phone', counts: counts(0, 0) }], { ...consumer, phone: [0, 10] }, 'consumer')?.scope).toBe('active');
  });
});
