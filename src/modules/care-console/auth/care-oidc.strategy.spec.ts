import { memberOf } from './care-oidc.strategy';

describe(memberOf.name, () => {
  it.each([
    [['care-agents', 'tellers'], true],
    ['care-agents', true],
    ['tellers care-agents', true],
    [['care-agents-eu'], false],
    ['care-agents-eu', false],
    [undefined, false],
    [{ 'care-agents': true }, false],
  ])('claim %j → %s', (claim, expected) => {
    expect(memberOf(claim, 'care-agents')).toBe(expected);
  });
});
