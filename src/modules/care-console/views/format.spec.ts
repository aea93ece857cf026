import { consoleTime } from './format';

describe(consoleTime.name, () => {
  it('shows an ISO time or a Date to the minute, in UTC, saying so', () => {
    expect(consoleTime('2026-11-25T18:39:59.999Z')).toBe('2026-11-25 18:39 UTC');
    expect(consoleTime('2026-11-25T20:39:00+02:00')).toBe('2026-11-25 18:39 UTC');
    expect(consoleTime(new Date(Date.UTC(2026, 0, 2, 3, 4)))).toBe('2026-01-02 03:04 UTC');
  });

  it('leaves a value that is no time as it is', () => {
    expect(consoleTime('not a time')).toBe('not a time');
  });
});
