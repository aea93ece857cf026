import { CatalogueEntry, ERROR_CATALOGUE, ErrorKey } from './error-catalogue';
import { ERROR_GUIDANCE } from './error-guidance';
import { documentedCatalogue, publicCatalogue } from './public-catalogue';

const URL = 'https://api.example.test';
const keys = Object.keys(ERROR_CATALOGUE) as ErrorKey[];
const entry = (key: ErrorKey): CatalogueEntry => ERROR_CATALOGUE[key];

describe('ERROR_GUIDANCE', () => {
  it('gives every entry a cause and an action, in words a partner has (no internal document, setting or variable)', () => {
    for (const key of keys) {
      const { cause, action } = ERROR_GUIDANCE[key];
      expect({ key, cause: cause.length > 10, action: action.length > 5 }).toEqual({ key, cause: true, action: true });
      expect({ key, text: `${cause} ${action}` }).not.toEqual({
        key,
        text: expect.stringMatching(/SERVICE\.md|CONTRACT|section \d|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/),
      });
    }
  });

  it('the rows of one (HTTP status, code, subCode) agree on whether a retry can succeed', () => {
    const outlooks = new Map<string, Set<string>>();
    for (const key of keys) {
      const triple = `${entry(key).http}/${entry(key).code}/${entry(key).subCode}`;
      outlooks.set(triple, (outlooks.get(triple) ?? new Set()).add(ERROR_GUIDANCE[key].retry));
    }
    expect([...outlooks].filter(([, seen]) => seen.size > 1)).toEqual([]);
  });

  it('a 400, 404 or 422 only succeeds corrected; a 503 or 429 on the identical retry; a 500 and a lifetime limit never (SERVICE.md: no retry on 400 or 500)', () => {
    for (const key of keys) {
      const { http } = entry(key);
      const expected =
        http === 400 || http === 404 || http === 413 || http === 415 || http === 422
          ? 'afterFix'
          : http === 500
            ? 'no'
            : http >= 503 || http === 429
              ? 'yes'
              : undefined;
      if (expected) expect({ key, retry: ERROR_GUIDANCE[key].retry }).toEqual({ key, retry: expected });
    }
    expect(ERROR_GUIDANCE.LIFETIME_SSN_LIMIT.retry).toBe('no');
    expect(ERROR_GUIDANCE.ACTIVE_SSN_LIMIT.retry).toBe('afterChange');
    expect(ERROR_GUIDANCE.OFAC_HOLD.retry).toBe('afterChange');
  });
});

describe(documentedCatalogue.name, () => {
  it('is the public catalogue, entry for entry, with the guidance of each of its rows once', () => {
    const sut = documentedCatalogue(URL);
    expect(sut.map(({ guidance: _guidance, retry: _retry, ...entry }) => entry)).toEqual(publicCatalogue(URL));
    const notFound = sut.find((e) => e.httpStatus === 404 && e.code === 10);
    expect(notFound?.guidance.map((g) => g.cause)).toEqual([
      ERROR_GUIDANCE.ACCOUNT_NOT_FOUND.cause,
      ERROR_GUIDANCE.BUSINESS_PROFILE_NOT_FOUND.cause,
      ERROR_GUIDANCE.EVENT_NOT_FOUND.cause,
      ERROR_GUIDANCE.REQUEST_NOT_FOUND.cause,
      ERROR_GUIDANCE.PAYMENT_INSTRUMENT_NOT_FOUND.cause,
    ]);
    // Consumer and business phone limits share their triple and their guidance: said once.
    expect(sut.find((e) => e.code === 2 && e.subCode === 63)?.guidance).toEqual([
      { cause: ERROR_GUIDANCE.ACTIVE_PHONE_LIMIT.cause, action: ERROR_GUIDANCE.ACTIVE_PHONE_LIMIT.action },
    ]);
  });
});
