import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TEST_PUBLIC_URL, TestApp } from './support/test-app';

const CLIENT = { id: 'care-console', secret: 'care-console-spec-secret' };
const CALLBACK = `${TEST_PUBLIC_URL}/care/auth/callback`;

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
 * process): authorization code with PKCE and state via passport-oauth2; the allowed group gets in,
 * another group is refused, a forged state is refused, and console actions are audited with the
 * provider's subject and email.
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
    };
  }

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
    expect(jar.has('care_session')).toBe(true);
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

  it('a callback without the session that started the sign-in (state stored nowhere) is refused', async () => {
    const first = new CookieJar();
    const callback = await signInAtProvider(await startSignIn(first), 'alice');
    const stranger = new CookieJar();
    const res = await finish(stranger, callback);
    expect(res.status).toBe(403);
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

  describe('idle timeout (CARE_SESSION_IDLE_MINUTES)', () => {
    async function signedIn(): Promise<CookieJar> {
      const jar = new CookieJar();
      await finish(jar, await signInAtProvider(await startSignIn(jar), 'alice'));
      expect((await page(jar, '/care')).status).toBe(200);
      return jar;
    }

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
  });
});
