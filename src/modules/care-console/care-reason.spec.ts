import { careReason, shownReason } from './care-reason';

describe(careReason.name, () => {
  it('counts a line break once, whether sent as CRLF, CR or LF, and keeps it as LF', () => {
    const lines = ['a'.repeat(166), 'b'.repeat(166), 'c'.repeat(166)];
    expect(careReason(lines.join('\r\n'))).toEqual({ text: lines.join('\n'), valid: true });
    expect(careReason(lines.join('\r'))).toEqual({ text: lines.join('\n'), valid: true });
    expect(careReason(`${lines.join('\r\n')}x`).valid).toBe(false);
  });

  it('trims, and needs 3 to 500 characters without control characters but line breaks and tabs', () => {
    expect(careReason('  ok \r\n')).toEqual({ text: 'ok', valid: false });
    expect(careReason('called\tback').valid).toBe(true);
    expect(careReason('called\u0000back').valid).toBe(false);
    expect(careReason('called\u007fback').valid).toBe(false);
  });
});

describe(shownReason.name, () => {
  it('shows control characters as spaces', () => {
    expect(shownReason('a\u0000b\tc')).toBe('a b\tc');
  });
});
