import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { Clock } from '../src/infrastructure/time/clock';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TEST_PUBLIC_URL, TestApp } from './support/test-app';
import { rowsIn } from './support/hardening';

const CLIENT = { id: 'care-console', secret: 'care-console-spec-secret' };
const CALLBACK = `${TEST_PUBLIC_URL}/care/auth/callback`;
const HOUR = 60 * 60_000;

/** Cookies of one origin, as a browser would keep them (name=value only; enough for these flows). */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (name) this.cookies.set(name.trim(), value.join('='));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  has(name: string): boolean {
    return this.cookies.has(name);
  }
}

/**
 * Sign-in to the care console through a real OpenID Connect provider (oidc-provider in a child
 * process): authorization code with PKCE, state and nonce via passport-oauth2; the ID token is
 * verified against the provider's JWKS (a forged, unsigned, foreign or replayed one is refused);
 * the allowed group gets in, another group is refused, a forged state is refused, and console
 * actions are audited with the provider's subject and email.
 */
describe('Care console sign-in through an OpenID Connect provider (e2e)', () => {
  let provider: ChildProcess;
  let issuer: string;
  let app: TestApp;

  beforeAll(async () => {
    provider = spawn(process.execPath, [path.join(__dirname, 'support', 'oidc-provider.mjs')], {
      env: { ...process.env, OIDC_CLIENT_ID: CLIENT.id, OIDC_CLIENT_SECRET: CLIENT.secret, OIDC_REDIRECT_URI: CALLBACK },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    issuer = await new Promise<string>((resolve, reject) => {
      provider.once('exit', (code) => reject(new Error(`oidc-provider exited with ${code}`)));
      createInterface({ input: provider.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { issuer: string }).issuer));
    });
    app = await startTestApp('care_console_oidc', { env: { ...providerEnv(), CARE_OAUTH_USERINFO_URL: `${issuer}/me` } });
  });

  function providerEnv(): Record<string, string> {
    return {
      CARE_OAUTH_AUTHORIZATION_URL: `${issuer}/auth`,
      CARE_OAUTH_TOKEN_URL: `${issuer}/token`,
      CARE_OAUTH_CLIENT_ID: CLIENT.id,
      CARE_OAUTH_CLIENT_SECRET: CLIENT.secret,
      CARE_OAUTH_ALLOWED_GROUP: 'care-agents',
      CARE_OAUTH_SCOPE: 'openid email profile groups',
      CARE_OAUTH_ISSUER: issuer,
      CARE_OAUTH_JWKS_URL: `${issuer}/jwks`,
    };
  }

  /** The provider's next token response carries an ID token made bad in one way (test/support/oidc-provider.mjs). */
  async function nextIdToken(mode: 'forged' | 'unsigned' | 'nonce' | 'issuer' | 'userinfo-sub'): Promise<void> {
    const res = await fetch(`${issuer}/test/next-id-token`, { method: 'POST', body: mode });
    expect(res.status).toBe(204);
  }

  const sessionRows = () => rowsIn(app, 'care_sessions');

  afterAll(async () => {
    await app?.close();
    if (provider?.pid) process.kill(provider.pid);
  });

  /** Follows the provider's redirects with its own cookies until it sends the browser back to the console. */
  async function signInAtProvider(authorizeUrl: string, login: string): Promise<URL> {
    const jar = new CookieJar();
    const get = async (url: string) => {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
      jar.take(res);
      return res;
    };
    let res = await get(authorizeUrl);
    const interaction = new URL(res.headers.get('location') as string, issuer);
    expect(interaction.pathname).toMatch(/^\/interaction\//);
    res = await get(interaction.href);
    expect(await res.text()).toContain('name="login"');
    res = await fetch(`${interaction.href}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ login }),
    });
    jar.take(res);
    let location = new URL(res.headers.get('location') as string, issuer);
    while (location.origin === issuer) {
      res = await get(location.href);
      location = new URL(res.headers.get('location') as string, issuer);
    }
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    return location;
  }

  /** GET /care/auth/login: the console sends the browser to the provider with state and an S256 challenge. */
  async function startSignIn(jar: CookieJar, target: TestApp = app): Promise<string> {
    const res = await fetch(`${target.baseUrl}/care/auth/login`, { redirect: 'manual' });
    jar.take(res);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(`${issuer}/auth`);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('state')).toBeTruthy();
    expect(location.searchParams.get('redirect_uri')).toBe(CALLBACK);
    expect(location.searchParams.get('nonce')).toBeTruthy();
    expect(jar.has('care_login')).toBe(true);
    return location.href;
  }

  /** The provider's answer, delivered to this app (its public URL is the test's fixed one). */
  async function finish(jar: CookieJar, callback: URL, target: TestApp = app): Promise<Response> {
    const res = await fetch(`${target.baseUrl}${callback.pathname}${callback.search}`, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(res);
    return res;
  }

  const page = (jar: CookieJar, pathName: string, target: TestApp = app) =>
    fetch(`${target.baseUrl}${pathName}`, { redirect: 'manual', headers: { cookie: jar.header() } });

  it('the sign-in page offers the provider and no sandbox form when a provider is configured', async () => {
    const res = await fetch(`${app.baseUrl}/care/sign-in`);
    const body = await res.text();
    expect(body).toContain('/care/auth/login');
    expect(body).not.toContain('clientSecret');
    const sandbox = await fetch(`${app.baseUrl}/care/sign-in`, {
      method: 'POST',
      body: new URLSearchParams({ clientId: 'care', clientSecret: 'care-test-secret' }),
    });
    expect(sandbox.status).toBe(404);
  });

  it('a member of the allowed group signs in, and the console names them', async () => {
    const jar = new CookieJar();
    const callback = await signInAtProvider(await startSignIn(jar), 'alice');
    const res = await finish(jar, callback);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/care');
    const home = await page(jar, '/care');
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Signed in as <strong>alice@bank.test</strong>');
  });

  it('their console action is audited with the provider subject and email', async () => {
    const jar = new CookieJar();
    await finish(jar, await signInAtProvider(await startSignIn(jar), 'alice'));
    const enrolled = await app.client().post('/v1/programs/sandbox/enrollments', EnrollmentRequestFactory.build());
    const accountId = (enrolled.body.account as { accountIdentifier: string }).accountIdentifier;
    const confirm = await page(jar, `/care/accounts/${accountId}/operations/lock`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await confirm.text())?.[1] as string;
    const res = await fetch(`${app.baseUrl}/care/accounts/${accountId}/operations/lock`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, reason: 'Suspicious card-not-present activity' }),
    });
    expect(res.status).toBe(303);
    const audit = await app.client('care').get(`/v1/care/accounts/${accountId}/audit`);
    expect(audit.body.auditTrail).toEqual([
      expect.objectContaining({
        action: 'lock',
        actor: 'console:alice@bank.test',
        staff: { subject: 'alice', email: 'alice@bank.test' },
        reason: 'Suspicious card-not-present activity',
      }),
    ]);
  });

  it('a person of another group is refused (403) and gets no session', async () => {
    const jar = new CookieJar();
    const res = await finish(jar, await signInAtProvider(await startSignIn(jar), 'bob'));
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('not a member of the care staff group');
    const home = await page(jar, '/care');
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toBe('/care/sign-in');
  });

  it('a forged state is refused (403) even with a valid code, and gets no session', async () => {
    const jar = new CookieJar();
    const callback = await signInAtProvider(await startSignIn(jar), 'alice');
    callback.searchParams.set('state', 'forged-state-value');
    const res = await finish(jar, callback);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Sign-in refused');
    const home = await page(jar, '/care');
    expect(home.status).toBe(303);
  });

  it('a callback without the login cookie of the browser that started the sign-in is refused', async () => {
    const first = new CookieJar();
    const callback = await signInAtProvider(await startSignIn(first), 'alice');
    const stranger = new CookieJar();
    const res = await finish(stranger, callback);
    expect(res.status).toBe(403);
  });

  it.each([
    ['forged', 'signed by another key under the provider key id'],
    ['unsigned', 'unsigned (alg none)'],
    ['nonce', "signed by the provider but carrying another sign-in's nonce"],
    ['issuer', 'signed by the provider key but naming another issuer'],
  ] as const)('an ID token %s (%s) is refused (403), even with a userinfo endpoint, and gets no session', async (mode, _how) => {
    const jar = new CookieJar();
    const callback = await signInAtProvider(await startSignIn(jar), 'alice');
    await nextIdToken(mode);
    const res = await finish(jar, callback);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Your identity could not be verified');
    const home = await page(jar, '/care');
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toBe('/care/sign-in');
  });

  it("userinfo claims naming another subject than the verified ID token's are refused (403)", async () => {
    const jar = new CookieJar();
    const callback = await signInAtProvider(await startSignIn(jar), 'alice');
    await nextIdToken('userinfo-sub');
    const res = await finish(jar, callback);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Your identity could not be verified');
    expect((await page(jar, '/care')).status).toBe(303);
  });

  it('anonymous visits to /care/auth/login write no session row (the sign-in in progress is a signed cookie)', async () => {
    const before = await sessionRows();
    for (let visit = 0; visit < 25; visit++) {
      const res = await fetch(`${app.baseUrl}/care/auth/login`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.getSetCookie().filter((cookie) => cookie.startsWith('care_session='))).toEqual([]);
    }
    expect(await sessionRows()).toBe(before);
  });

  it('a tampered login cookie is refused', async () => {
    const jar = new CookieJar();
    const callback = await signInAtProvider(await startSignIn(jar), 'alice');
    // One character of the signed value changed: its signature no longer matches.
    const tampered = jar.header().replace(/care_login=(.)/, (_match, first: string) => `care_login=${first === 'A' ? 'B' : 'A'}`);
    const res = await fetch(`${app.baseUrl}${callback.pathname}${callback.search}`, { redirect: 'manual', headers: { cookie: tampered } });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('This sign-in was not started in this browser');
  });

  describe("the callback never shows the provider's error_description", () => {
    const description = 'Call +1 202 555 0100 to restore your access';
    const answer = (state?: string) =>
      `/care/auth/callback?${new URLSearchParams({ ...(state ? { state } : {}), error: 'access_denied', error_description: description })}`;

    it.each([
      ['no state', undefined],
      ['a state this browser was not given', 'forged-state-value'],
    ])('with %s: a fixed message (403)', async (_case, state) => {
      const res = await fetch(`${app.baseUrl}${answer(state)}`, { redirect: 'manual' });
      expect(res.status).toBe(403);
      const body = await res.text();
      expect(body).toContain('This sign-in was not started in this browser, or it took too long.');
      expect(body).not.toContain('555');
    });

    it("with this browser's state: a fixed message naming the provider (403), and the login cookie is cleared", async () => {
      const jar = new CookieJar();
      const state = new URL(await startSignIn(jar)).searchParams.get('state') as string;
      const res = await page(jar, answer(state));
      expect(res.status).toBe(403);
      const body = await res.text();
      expect(body).toContain('The identity provider did not complete the sign-in.');
      expect(body).not.toContain('555');
      expect(res.headers.getSetCookie()).toEqual(expect.arrayContaining([expect.stringMatching(/^care_login=;.*Max-Age=0/)]));
    });
  });

  it('a second instance on the same database serves the signed-in session (PostgreSQL store, cookie secret derived from the shared keys)', async () => {
    const jar = new CookieJar();
    await finish(jar, await signInAtProvider(await startSignIn(jar), 'alice'));
    const second = await startTestApp('care_console_oidc_second', { schema: app.schema, env: { ...providerEnv(), CARE_OAUTH_USERINFO_URL: `${issuer}/me` } });
    try {
      const res = await page(jar, '/care', second);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('alice@bank.test');
    } finally {
      await second.close();
    }
  });

  async function signedIn(): Promise<CookieJar> {
    const jar = new CookieJar();
    await finish(jar, await signInAtProvider(await startSignIn(jar), 'alice'));
    expect((await page(jar, '/care')).status).toBe(200);
    return jar;
  }

  describe('absolute lifetime (CARE_SESSION_MAX_HOURS, default 8), under a pinned Clock', () => {
    it('a session in use every 10 minutes (never idle) ends 8 hours after sign-in, and the sign-in page says why', async () => {
      const jar = await signedIn();
      const clock = app.app.get(Clock, { strict: false });
      const realNow = clock.now.bind(clock);
      let offsetMs = 0;
      const pinned = jest.spyOn(clock, 'now').mockImplementation(() => new Date(realNow().getTime() + offsetMs));
      try {
        for (offsetMs = 10 * 60_000; offsetMs < 8 * HOUR - 60_000; offsetMs += 10 * 60_000) expect((await page(jar, '/care')).status).toBe(200);
        offsetMs = 8 * HOUR;
        const res = await page(jar, '/care');
        expect(res.status).toBe(303);
        expect(res.headers.get('location')).toBe('/care/sign-in');
        jar.take(res);
        expect(await (await page(jar, '/care/sign-in')).text()).toContain('Your session reached its maximum length');
        expect((await page(jar, '/care')).status).toBe(303);
      } finally {
        pinned.mockRestore();
      }
    });
  });

  describe('idle timeout (CARE_SESSION_IDLE_MINUTES)', () => {
    it('a session whose store expiry has passed is gone: back to the sign-in page', async () => {
      const jar = await signedIn();
      const db = await app.db();
      try {
        await db.query(`update care_sessions set expire = now() - interval '1 second' where sess::jsonb ? 'staff'`);
      } finally {
        await db.end();
      }
      const res = await page(jar, '/care');
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/care/sign-in');
    });

    it('a session idle for longer than the timeout ends even if its row is still there, and the sign-in page says why', async () => {
      const jar = await signedIn();
      const db = await app.db();
      try {
        await db.query(`update care_sessions set sess = jsonb_set(sess::jsonb, '{lastSeen}', to_jsonb($1::bigint))::json where sess::jsonb ? 'staff'`, [
          Date.now() - 16 * 60_000,
        ]);
      } finally {
        await db.end();
      }
      const res = await page(jar, '/care/accounts/00000000-0000-0000-0000-000000000000');
      expect(res.status).toBe(303);
      jar.take(res);
      const signIn = await page(jar, '/care/sign-in');
      expect(await signIn.text()).toContain('Your session ended after a period of inactivity');
      expect((await page(jar, '/care')).status).toBe(303);
    });
  });

  describe('claims from the ID token (no CARE_OAUTH_USERINFO_URL)', () => {
    let idTokenApp: TestApp;

    beforeAll(async () => {
      idTokenApp = await startTestApp('care_console_oidc_idtoken', { env: providerEnv() });
    });

    afterAll(async () => {
      await idTokenApp?.close();
    });

    it('the allowed group gets in and another group is refused, judged on the ID token of the token response', async () => {
      const alice = new CookieJar();
      const aliceRes = await finish(alice, await signInAtProvider(await startSignIn(alice, idTokenApp), 'alice'), idTokenApp);
      expect(aliceRes.status).toBe(303);
      expect(await (await page(alice, '/care', idTokenApp)).text()).toContain('alice@bank.test');
      const bob = new CookieJar();
      const bobRes = await finish(bob, await signInAtProvider(await startSignIn(bob, idTokenApp), 'bob'), idTokenApp);
      expect(bobRes.status).toBe(403);
    });

    it.each(['forged', 'unsigned'] as const)('a %s ID token is refused (403)', async (mode) => {
      const jar = new CookieJar();
      const callback = await signInAtProvider(await startSignIn(jar, idTokenApp), 'alice');
      await nextIdToken(mode);
      const res = await finish(jar, callback, idTokenApp);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('Your identity could not be verified');
    });
  });
});
