import { parse } from 'pg-connection-string';
import { usesTls } from './app-config';

describe(usesTls.name, () => {
  const url = (query: string) => `postgres://app@db.internal:5432/enrollment${query}`;

  it.each([
    ['?sslmode=require', true],
    ['?sslmode=verify-full', true],
    ['?sslmode=verify-ca', true],
    ['?sslmode=no-verify', true],
    ['?ssl=true', true],
    ['?ssl=1', true],
    ['?sslmode=disable&sslmode=require', true],
    ['', false],
    ['?sslmode=disable', false],
    ['?ssl=0', false],
    ['?ssl=true&sslmode=disable', false],
    // Given twice, pg connects with the last: in clear text here, whatever the first says.
    ['?sslmode=require&sslmode=disable', false],
    ['?ssl=1&ssl=0', false],
    ['?ssl=false', true],
    ['?sslnegotiation=direct', true],
    ['?sslmode=disable&sslnegotiation=direct', false],
  ])('%s: %s, as pg connects', (query, tls) => {
    expect(usesTls(url(query))).toBe(tls);
    // pg's own parser of DATABASE_URL gives the same answer: a pg upgrade that changes its rule fails here.
    expect(Boolean(parse(url(query)).ssl)).toBe(tls);
  });
});
