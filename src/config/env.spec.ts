import * as path from 'node:path';
import { AppConfig } from './app-config';
import { EnvError, loadEnv, UNBLOCK_RETRY_WINDOW_MS } from './env';

const PROVIDER = {
  CARE_OAUTH_AUTHORIZATION_URL: 'https://idp.bank/authorize',
  CARE_OAUTH_TOKEN_URL: 'https://idp.bank/token',
  CARE_OAUTH_CLIENT_ID: 'care-console',
  CARE_OAUTH_ALLOWED_GROUP: 'care-agents',
  CARE_OAUTH_ISSUER: 'https://idp.bank',
  CARE_OAUTH_JWKS_URL: 'https://idp.bank/jwks',
};

describe(loadEnv.name, () => {
  it('refuses an external issuer without its audience or its JWKS (CONTRACT section 3), naming what is missing', () => {
    expect(() => loadEnv({ OAUTH_ISSUER: 'https://issuer.example', OAUTH_JWKS_URI: 'https://issuer.example/jwks' })).toThrow(
      /^OAUTH_ISSUER needs OAUTH_AUDIENCE$/,
    );
    expect(() => loadEnv({ OAUTH_ISSUER: 'https://issuer.example' })).toThrow(/^OAUTH_ISSUER needs OAUTH_AUDIENCE and OAUTH_JWKS_URI$/);
  });

  it('binds the metrics listener to 127.0.0.1 unless METRICS_HOST names another address', () => {
    expect(loadEnv({ HOST: '0.0.0.0' }).metricsHost).toBe('127.0.0.1');
    expect(loadEnv({ METRICS_HOST: '0.0.0.0' }).metricsHost).toBe('0.0.0.0');
  });

  it('a flag is "true" or "false" (README: a bad value stops the start, naming it); the default when unset', () => {
    expect(loadEnv({})).toMatchObject({ jobsEnabled: true, dbPreparedStatements: true, docsInProduction: false });
    expect(loadEnv({ JOBS_ENABLED: 'false', DB_PREPARED_STATEMENTS: 'false', DOCS_IN_PRODUCTION: 'true' })).toMatchObject({
      jobsEnabled: false,
      dbPreparedStatements: false,
      docsInProduction: true,
    });
    for (const name of ['JOBS_ENABLED', 'DB_PREPARED_STATEMENTS', 'DOCS_IN_PRODUCTION']) {
      for (const raw of ['FALSE', 'yes', '0', 'off']) {
        expect(() => loadEnv({ [name]: raw })).toThrow(new EnvError(`${name} must be "true" or "false", got "${raw}"`));
      }
    }
  });

  it('an integer is written in decimal digits (no hex, exponent or fraction)', () => {
    for (const raw of ['0x1195', '3e3', '1.0', ' 80']) expect(() => loadEnv({ PORT: raw })).toThrow(/^PORT must be an integer/);
    expect(loadEnv({ LOCK_WAIT_MS: '250' }).lockWaitMs).toBe(250);
  });

  it('a port is at most 65535, naming the variable (PORT 0: any free port)', () => {
    for (const name of ['METRICS_PORT', 'EMBEDDED_PG_PORT']) {
      expect(() => loadEnv({ [name]: '70000' })).toThrow(new EnvError(`${name} must be a port (1 to 65535), got "70000"`));
    }
    expect(() => loadEnv({ PORT: '70000' })).toThrow(new EnvError('PORT must be a port (0 to 65535), got "70000"'));
    expect(loadEnv({ PORT: '65535' }).port).toBe(65535);
    expect(loadEnv({ PORT: '0' }).port).toBe(0);
  });

  it('METRICS_PORT is its own listener: the port PORT serves is refused, naming METRICS_PORT', () => {
    expect(() => loadEnv({ PORT: '3929', METRICS_PORT: '3929' })).toThrow(
      new EnvError('METRICS_PORT must differ from PORT (3929): the metrics have a listener of their own'),
    );
    expect(loadEnv({ PORT: '3929', METRICS_PORT: '9464' }).metricsPort).toBe(9464);
  });

  it('DATABASE_URL is a postgres:// or postgresql:// URL, refused naming the variable and never echoing the value (it holds the password)', () => {
    const message = 'DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)';
    for (const raw of [
      'Secr3tPwXYZ',
      'postgres://postgres:Secr3tPwXYZ@127.0.0.1:notaport/enrollment',
      'mysql://u:Secr3tPwXYZ@h/db',
      'postgres://u:Secr3tPwXYZ@:5432/db',
    ]) {
      expect(() => loadEnv({ DATABASE_URL: raw })).toThrow(new EnvError(message));
    }
    expect(loadEnv({ DATABASE_URL: 'postgresql://u:p@db.internal:5432/enrollment?sslmode=require' }).databaseUrl).toBe(
      'postgresql://u:p@db.internal:5432/enrollment?sslmode=require',
    );
    expect(loadEnv({ DATABASE_URL: 'postgres://u@127.0.0.1/db' }).databaseUrl).toBe('postgres://u@127.0.0.1/db');
  });

  it("LOG_LEVEL is one of the logger's levels", () => {
    expect(loadEnv({ LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
    expect(() => loadEnv({ LOG_LEVEL: 'verbose' })).toThrow(/^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"$/);
  });

  it('PUBLIC_URL is an http(s) URL without query or fragment (the token issuer and every docUrl start with it)', () => {
    expect(loadEnv({ PUBLIC_URL: 'https://api.bank.example/' }).publicUrl).toBe('https://api.bank.example');
    for (const raw of [
      'notaurl',
      'ftp://api.bank.example',
      'https://api.bank.example/?x=1',
      'https://api.bank.example/#top',
      ' https://api.bank.example',
      'http:api.bank.example',
      'https://user:pw@api.bank.example',
    ]) {
      expect(() => loadEnv({ PUBLIC_URL: raw })).toThrow(
        new EnvError(`PUBLIC_URL must be an http or https URL without user info, query or fragment, got "${raw}"`),
      );
    }
  });

  it('DATABASE_TLS is "off" or "on" (default on)', () => {
    expect(loadEnv({}).databaseTlsOff).toBe(false);
    expect(loadEnv({ DATABASE_TLS: 'off' }).databaseTlsOff).toBe(true);
    expect(() => loadEnv({ DATABASE_TLS: 'no' })).toThrow(/^DATABASE_TLS /);
  });

  describe('TRUST_PROXY (off by default)', () => {
    it.each([
      [undefined, false],
      ['off', false],
      ['true', true],
      ['10.0.0.0/8, 192.0.2.1', '10.0.0.0/8,192.0.2.1'],
    ])('%s is %s', (raw, expected) => {
      expect(loadEnv(raw === undefined ? {} : { TRUST_PROXY: raw }).trustProxy).toEqual(expected);
    });

    it('refuses what is neither a flag nor addresses', () => {
      expect(() => loadEnv({ TRUST_PROXY: 'loadbalancer' })).toThrow(/^TRUST_PROXY /);
    });

    it('refuses a bare hop count, which Fastify 5.12 ignores (it trusts no proxy then) rather than reads', () => {
      expect(() => loadEnv({ TRUST_PROXY: '2' })).toThrow(/^TRUST_PROXY .*hop count/);
    });
  });

  describe('timeouts handed to PostgreSQL and Node (at most 2^31 - 1 ms, which both take)', () => {
    it.each(['LOCK_WAIT_MS', 'REQUEST_TIMEOUT_MS', 'DB_STATEMENT_TIMEOUT_MS', 'DB_QUERY_TIMEOUT_MS', 'WEBHOOK_TIMEOUT_MS'])(
      '%s: 2147483647 is taken, 2147483648 stops the start naming the variable',
      (name) => {
        // (A webhook lease long enough for the longest attempt.)
        expect(() => loadEnv({ [name]: '2147483647', WEBHOOK_LEASE_SECONDS: '2200000' })).not.toThrow();
        expect(() => loadEnv({ [name]: '2147483648' })).toThrow(new RegExp(`^${name} must be an integer from \\d+ to 2147483647`));
        expect(() => loadEnv({ [name]: '3000000000' })).toThrow(EnvError);
      },
    );
  });

  describe('UNBLOCK_RETRY_DELAYS_MS (SERVICE.md: up to 3 unblock retries, all within 15 minutes)', () => {
    it('defaults to 3 delays inside the 15-minute window', () => {
      const sut = loadEnv({});
      expect(sut.unblockRetryDelaysMs).toHaveLength(3);
      expect(sut.unblockRetryDelaysMs.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(UNBLOCK_RETRY_WINDOW_MS);
    });

    it.each(['150,150,150', '300000,300000,300000', '900000', '0'])('accepts %s', (raw) => {
      expect(loadEnv({ UNBLOCK_RETRY_DELAYS_MS: raw }).unblockRetryDelaysMs).toEqual(raw.split(',').map(Number));
    });

    it.each([
      ['four entries', '1,1,1,1'],
      ['a sum past 15 minutes', '300000,300000,300001'],
      ['one delay past 15 minutes', '900001'],
      ['a non-integer', '60000,abc'],
      ['a negative delay', '-1'],
      ['an empty entry (not a delay of 0)', '60000,,60000'],
      ['a fraction', '1.5'],
    ])('refuses %s with a message naming the variable', (_case, raw) => {
      expect(() => loadEnv({ UNBLOCK_RETRY_DELAYS_MS: raw })).toThrow(EnvError);
      expect(() => loadEnv({ UNBLOCK_RETRY_DELAYS_MS: raw })).toThrow(/^UNBLOCK_RETRY_DELAYS_MS /);
    });

    it('stops the start: AppConfig.load (the first thing main does) throws before anything else is read', () => {
      expect(() => AppConfig.load({ UNBLOCK_RETRY_DELAYS_MS: '60000,240000,540000,60000' })).toThrow(/UNBLOCK_RETRY_DELAYS_MS must list at most 3 delays/);
    });
  });

  describe('WEBHOOK_LEASE_SECONDS (how long a claimed webhook attempt is leased)', () => {
    it('defaults to 30 s and accepts 15 s and more', () => {
      expect(loadEnv({}).webhookLeaseSeconds).toBe(30);
      expect(loadEnv({ WEBHOOK_LEASE_SECONDS: '15' }).webhookLeaseSeconds).toBe(15);
    });

    it.each(['14', '0', 'abc'])('refuses %s: a lease shorter than an attempt (10 s HTTP timeout) would send it twice', (raw) => {
      expect(() => loadEnv({ WEBHOOK_LEASE_SECONDS: raw })).toThrow(/^WEBHOOK_LEASE_SECONDS must be an integer >= 15/);
    });

    it('refuses a lease that does not outlast WEBHOOK_TIMEOUT_MS by 5 s', () => {
      expect(loadEnv({ WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_LEASE_SECONDS: '15' }).webhookTimeoutMs).toBe(10_000);
      expect(() => loadEnv({ WEBHOOK_TIMEOUT_MS: '10001', WEBHOOK_LEASE_SECONDS: '15' })).toThrow(
        /^WEBHOOK_LEASE_SECONDS must be at least 5 s more than WEBHOOK_TIMEOUT_MS/,
      );
    });
  });

  describe('webhook delivery and test call limits', () => {
    it('default to a 10 s attempt, 64 attempts in flight per partner and 60 test or redeliver calls a minute', () => {
      expect(loadEnv({})).toMatchObject({ webhookTimeoutMs: 10_000, webhookPartnerMaxInFlight: 64, webhookTestRateLimit: 60 });
      expect(loadEnv({ WEBHOOK_TEST_RATE_LIMIT: '3', WEBHOOK_PARTNER_MAX_IN_FLIGHT: '2', WEBHOOK_TIMEOUT_MS: '500' })).toMatchObject({
        webhookTimeoutMs: 500,
        webhookPartnerMaxInFlight: 2,
        webhookTestRateLimit: 3,
      });
    });

    it.each(['WEBHOOK_TEST_RATE_LIMIT', 'WEBHOOK_PARTNER_MAX_IN_FLIGHT'])('refuses %s of 0', (name) => {
      expect(() => loadEnv({ [name]: '0' })).toThrow(new RegExp(`^${name} must be an integer >= 1`));
    });
  });

  describe('the app pool: DB_POOL_SIZE connections, DB_POOL_MIN of them kept while idle', () => {
    it('keeps every connection by default (a fixed-size pool once warm), and fewer when asked', () => {
      expect(loadEnv({})).toMatchObject({ dbPoolSize: 20, dbPoolMin: 20 });
      expect(loadEnv({ DB_POOL_SIZE: '8' })).toMatchObject({ dbPoolSize: 8, dbPoolMin: 8 });
      expect(loadEnv({ DB_POOL_SIZE: '8', DB_POOL_MIN: '0' })).toMatchObject({ dbPoolSize: 8, dbPoolMin: 0 });
    });

    it('refuses a minimum above the size', () => {
      expect(() => loadEnv({ DB_POOL_SIZE: '8', DB_POOL_MIN: '9' })).toThrow(/^DB_POOL_MIN must be at most DB_POOL_SIZE \(8\), got "9"$/);
    });
  });

  describe('OFAC screening', () => {
    it('is off by default, with the 0.92 threshold', () => {
      const sut = loadEnv({});

      expect(sut.ofac).toEqual({ listDir: undefined, matchThreshold: 0.92 });
    });

    it('reads the list folder as an absolute path and the threshold', () => {
      const sut = loadEnv({ OFAC_LIST_DIR: 'lists/ofac', OFAC_MATCH_THRESHOLD: '0.9' });

      expect(sut.ofac).toEqual({ listDir: path.resolve('lists/ofac'), matchThreshold: 0.9 });
      expect(loadEnv({ OFAC_MATCH_THRESHOLD: '1' }).ofac.matchThreshold).toBe(1);
    });

    it.each(['0', '-0.5', '1.01', 'high', 'NaN', 'Infinity'])('refuses OFAC_MATCH_THRESHOLD=%s', (value) => {
      expect(() => loadEnv({ OFAC_MATCH_THRESHOLD: value })).toThrow(EnvError);
      expect(() => loadEnv({ OFAC_MATCH_THRESHOLD: value })).toThrow('OFAC_MATCH_THRESHOLD must be a number in (0, 1]');
    });
  });

  describe('hardening limits (CONTRACT section 12)', () => {
    it('TOKEN_RATE_LIMIT defaults to 60 a minute and must be a positive integer', () => {
      expect(loadEnv({}).tokenRateLimit).toBe(60);
      expect(loadEnv({ TOKEN_RATE_LIMIT: '5' }).tokenRateLimit).toBe(5);
      expect(() => loadEnv({ TOKEN_RATE_LIMIT: '0' })).toThrow(/TOKEN_RATE_LIMIT must be an integer >= 1/);
    });

    it('DB_QUERY_TIMEOUT_MS defaults to 5 s past the statement timeout', () => {
      expect(loadEnv({}).dbQueryTimeoutMs).toBe(20_000);
      expect(loadEnv({ DB_STATEMENT_TIMEOUT_MS: '1000' }).dbQueryTimeoutMs).toBe(6000);
      expect(loadEnv({ DB_QUERY_TIMEOUT_MS: '1500' }).dbQueryTimeoutMs).toBe(1500);
    });
  });

  describe('care console (CONTRACT section 14)', () => {
    it('has no provider by default, a 15-minute idle timeout, an 8-hour lifetime and no fixed session secret', () => {
      expect(loadEnv({}).careConsole).toEqual({ oauth: null, sessionIdleMinutes: 15, sessionMaxHours: 8, sessionSecret: undefined });
    });

    it('CARE_SESSION_MAX_HOURS sets the absolute lifetime, at least an hour', () => {
      expect(loadEnv({ CARE_SESSION_MAX_HOURS: '12' }).careConsole.sessionMaxHours).toBe(12);
      expect(() => loadEnv({ CARE_SESSION_MAX_HOURS: '0' })).toThrow('CARE_SESSION_MAX_HOURS must be an integer >= 1');
    });

    it('reads the provider, with the groups claim and OpenID scopes by default', () => {
      const env = loadEnv({
        CARE_OAUTH_AUTHORIZATION_URL: 'https://idp.bank/authorize',
        CARE_OAUTH_TOKEN_URL: 'https://idp.bank/token',
        CARE_OAUTH_CLIENT_ID: 'care-console',
        CARE_OAUTH_CLIENT_SECRET: 's3cret',
        CARE_OAUTH_ALLOWED_GROUP: 'care-agents',
        CARE_OAUTH_ISSUER: 'https://idp.bank',
        CARE_OAUTH_JWKS_URL: 'https://idp.bank/jwks',
        CARE_SESSION_IDLE_MINUTES: '5',
      });
      expect(env.careConsole).toMatchObject({
        oauth: {
          clientId: 'care-console',
          allowedGroup: 'care-agents',
          groupClaim: 'groups',
          scope: 'openid email profile',
          userinfoUrl: undefined,
          issuer: 'https://idp.bank',
          jwksUrl: 'https://idp.bank/jwks',
        },
        sessionIdleMinutes: 5,
      });
    });

    it('a half-configured provider (the ID token checks included) or a short session secret stops the start, naming what is missing', () => {
      expect(() => loadEnv({ CARE_OAUTH_TOKEN_URL: 'https://idp.bank/token' })).toThrow(
        "the care console's identity provider needs CARE_OAUTH_AUTHORIZATION_URL, CARE_OAUTH_CLIENT_ID, CARE_OAUTH_ALLOWED_GROUP, CARE_OAUTH_ISSUER, CARE_OAUTH_JWKS_URL",
      );
      expect(() => loadEnv({ CARE_SESSION_SECRET: 'short' })).toThrow('CARE_SESSION_SECRET must be at least 32 characters');
    });

    it('a provider asked for no openid scope stops the start: the ID token is what proves who signed in', () => {
      expect(() => loadEnv({ ...PROVIDER, CARE_OAUTH_SCOPE: 'email profile' })).toThrow('CARE_OAUTH_SCOPE must include openid, got "email profile"');
    });

    it('production refuses http provider URLs, naming each variable and saying https', () => {
      const http = { ...PROVIDER, CARE_OAUTH_ISSUER: 'http://idp.bank', CARE_OAUTH_JWKS_URL: 'http://idp.bank/jwks', CARE_OAUTH_USERINFO_URL: 'idp.bank/me' };
      expect(() => AppConfig.load(http)).not.toThrow(/https/);
      expect(() => AppConfig.load({ ...http, APP_MODE: 'production' })).toThrow(
        /CARE_OAUTH_ISSUER must be an https URL; CARE_OAUTH_JWKS_URL must be an https URL; CARE_OAUTH_USERINFO_URL must be an https URL$/,
      );
      expect(() => AppConfig.load({ ...PROVIDER, APP_MODE: 'production' })).not.toThrow(/CARE_OAUTH/);
    });
  });
});
