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

  it.each([
    ['three zero-width spaces', '\u200b\u200b\u200b'],
    ['a right-to-left override', '\u202e!!!'],
    ['a zero-width joiner', 'ok\u200d!'],
    ['a C1 control character', 'called\u0085back'],
    ['fewer than 3 visible characters', 'a \t\n b'],
    ['combining marks on their own', 'a\u0301\u0301\u0301b'],
  ])('refuses %s', (_case, raw) => {
    expect(careReason(raw).valid).toBe(false);
  });

  it('accepts any script, and symbols', () => {
    expect(careReason('Llamó la clienta 📞').valid).toBe(true);
    expect(careReason('客户来电').valid).toBe(true);
    expect(careReason('#42').valid).toBe(true);
  });
});

describe(shownReason.name, () => {
  it('shows control and format characters as spaces', () => {
    expect(shownReason('a\u0000b\tc\u202ed\ne')).toBe('a b\tc d\ne');
  });
});
