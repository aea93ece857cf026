import { utcMillis } from './utc';

describe(utcMillis.name, () => {
  it('reads a date-time without an offset as UTC, and keeps an offset or Z as given', () => {
    expect(utcMillis('2026-05-16T14:00:00')).toBe(Date.UTC(2026, 4, 16, 14));
    expect(utcMillis('2026-05-16T14:00')).toBe(Date.UTC(2026, 4, 16, 14));
    expect(utcMillis('2026-05-16T14:00:00.250')).toBe(Date.UTC(2026, 4, 16, 14, 0, 0, 250));
    expect(utcMillis('2026-05-16T14:00:00Z')).toBe(Date.UTC(2026, 4, 16, 14));
    expect(utcMillis('2026-05-16T23:00:00+09:00')).toBe(Date.UTC(2026, 4, 16, 14));
    expect(utcMillis('2026-05-16T09:00:00-0500')).toBe(Date.UTC(2026, 4, 16, 14));
    expect(utcMillis('2026-05-16')).toBe(Date.UTC(2026, 4, 16));
  });

  it('is NaN for what is not a date', () => {
    for (const text of ['yesterday', '', '2026-05-16T14', '2026-13-01T00:00:00']) expect(utcMillis(text)).toBeNaN();
  });
});
