import { privatePath } from './private-path';

describe(privatePath.name, () => {
  it.each([
    ['/v1/programs/sandbox/enrollments', '/v1/programs/sandbox/enrollments'],
    [
      '/v1/programs/sandbox/enrollments/accounts/3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b',
      '/v1/programs/sandbox/enrollments/accounts/3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b',
    ],
    ['/v1/programs/sandbox/accounts/271-83-4620', '/v1/programs/sandbox/accounts/[redacted]'],
    ['/v1/programs/271834620/enrollments', '/v1/programs/[redacted]/enrollments'],
    ['/v1/accounts/(271)%20834-6223/users', '/v1/accounts/[redacted]/users'],
    ['/v1/accounts/+1.271.834.6223', '/v1/accounts/[redacted]'],
    ['/v1/accounts/4111111111111111', '/v1/accounts/[redacted]'],
    ['/care/accounts/jose@example.com', '/care/accounts/[redacted]'],
    ['/care/accounts/jose%40example.com', '/care/accounts/[redacted]'],
    ['/v1/accounts/12345678', '/v1/accounts/12345678'],
    ['/v1/accounts/00000000-0000-4000-8000-000000000000', '/v1/accounts/00000000-0000-4000-8000-000000000000'],
    ['/v1/errors/100-1', '/v1/errors/100-1'],
    ['/v1/accounts/%E0%A4%A', '/v1/accounts/%E0%A4%A'],
  ])('%s → %s', (path, logged) => {
    expect(privatePath(path)).toBe(logged);
  });
});
