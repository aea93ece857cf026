import { RequiresScopes } from './decorators';

describe(RequiresScopes.name, () => {
  it('refuses to decorate with no scope (it would admit any token), so the service does not start', () => {
    expect(() => RequiresScopes()).toThrow('@RequiresScopes() needs at least one scope');
  });

  it('decorates with one scope or more', () => {
    expect(typeof RequiresScopes('enrollments')).toBe('function');
    expect(typeof RequiresScopes('users', 'care')).toBe('function');
  });
});
