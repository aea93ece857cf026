import { newestEntries } from './perf-map';

describe('perf map compaction', () => {
  it('names a reused address by the function written there last', () => {
    const map = ['1000 100 JS:*startUp file:///boot.js:1', '2000 10 JS:*other file:///x.js:1', '1040 20 JS:*onRequest file:///hot.js:9'];
    expect(newestEntries(map)).toEqual(['1040 20 JS:*onRequest file:///hot.js:9', '2000 10 JS:*other file:///x.js:1']);
  });

  it('keeps entries that only touch (one ends where the next starts) and drops any that a later one overlaps at either edge', () => {
    // Oldest first: old (0xf0-0x110) is overlapped by d and a, x (0x11c-0x124) by b; a and b only touch.
    const map = ['f0 20 JS:*old', '11c 8 JS:*x', '100 10 JS:*a', '110 10 JS:*b', 'e8 10 JS:*d'];
    expect(newestEntries(map)).toEqual(['e8 10 JS:*d', '100 10 JS:*a', '110 10 JS:*b']);
  });

  it('skips lines that are not entries', () => {
    expect(newestEntries(['', 'garbage', '10 8 JS:*x'])).toEqual(['10 8 JS:*x']);
  });
});
