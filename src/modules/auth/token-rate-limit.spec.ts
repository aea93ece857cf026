import { FixedWindowCounter } from './token-rate-limit';

describe(FixedWindowCounter.name, () => {
  let now: number;
  let sut: FixedWindowCounter;

  beforeEach(() => {
    now = 1_000_000;
    sut = new FixedWindowCounter(2, 60_000, () => now);
  });

  it('peek does not count; hit does; the window is exceeded at max', () => {
    expect(sut.exceeded(sut.peek('a'))).toBe(false);
    sut.hit('a');
    expect(sut.peek('a').count).toBe(1);
    sut.hit('a');
    expect(sut.exceeded(sut.peek('a'))).toBe(true);
    expect(sut.exceeded(sut.peek('b'))).toBe(false);
  });

  it('a window that ended starts afresh', () => {
    sut.hit('a');
    sut.hit('a');
    now += 60_000;
    expect(sut.peek('a').count).toBe(0);
    expect(sut.hit('a')).toEqual({ count: 1, resetAtMs: now + 60_000 });
  });
});
