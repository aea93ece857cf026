import { PARTNERS, startTestApp, TestApp } from './support/test-app';
import { rowsIn } from './support/hardening';

/**
 * The console's HTTP plumbing (console-http.ts): a session on its routes only, and there its headers
 * and the session cookie's Secure flag (PUBLIC_URL is https here, as behind a TLS-terminating load
 * balancer).
 */
describe('care console HTTP (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('console-http', { env: { PUBLIC_URL: 'https://enrollment.test' } });
  });

  afterAll(async () => {
    await app.close();
  });

  /** The sandbox sign-in, as a browser does it: the page (its form cookie and token), then the post. */
  async function signIn(baseUrl = app.baseUrl, staffEmail = ''): Promise<{ page: Response; posted: Response }> {
    const page = await fetch(`${baseUrl}/care/sign-in`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';', 1)[0])
      .join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] as string;
    const posted = await fetch(`${baseUrl}/care/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ clientId: PARTNERS.care.clientId, clientSecret: PARTNERS.care.clientSecret, staffEmail, _csrf: csrf }),
    });
    return { page, posted };
  }

  const sessionRows = () => rowsIn(app, 'care_sessions');

  it('the sign-in page writes no session (its form token is a signed cookie); signing in starts one whose cookie is Secure, HttpOnly and scoped to /care', async () => {
    const before = await sessionRows();
    for (let i = 0; i < 5; i++) expect((await fetch(`${app.baseUrl}/care/sign-in`)).status).toBe(200);
    expect(await sessionRows()).toBe(before);
    const { page, posted } = await signIn();
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const form = page.headers.getSetCookie();
    expect(form.some((cookie) => cookie.startsWith('care_session='))).toBe(false);
    const token = form.find((cookie) => cookie.startsWith('care_signin='));
    expect(token).toMatch(/;\s*Secure/i);
    expect(token).toMatch(/;\s*HttpOnly/i);
    expect(token).toMatch(/;\s*Path=\/care\/sign-in(;|$)/);
    expect(posted.status).toBe(303);
    const session = posted.headers.getSetCookie().find((cookie) => cookie.startsWith('care_session='));
    expect(session).toMatch(/;\s*Secure/i);
    expect(session).toMatch(/;\s*HttpOnly/i);
    expect(session).toMatch(/;\s*Path=\/care(;|$)/);
    expect(await sessionRows()).toBe(before + 1);
  });

  it('signing out ends the session row and clears its cookie (it used to be left in the browser, refused)', async () => {
    const { posted } = await signIn();
    const session = (posted.headers.getSetCookie().find((cookie) => cookie.startsWith('care_session=')) as string).split(';', 1)[0] as string;
    const home = await fetch(`${app.baseUrl}/care`, { headers: { cookie: session } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await home.text())?.[1] as string;
    const cookie = [session, ...home.headers.getSetCookie().map((c) => c.split(';', 1)[0])].join('; ');
    const before = await sessionRows();
    const out = await fetch(`${app.baseUrl}/care/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf }),
    });
    expect(out.status).toBe(303);
    expect(await sessionRows()).toBe(before - 1);
    const cleared = out.headers.getSetCookie().find((c) => c.startsWith('care_session='));
    expect(cleared).toMatch(/^care_session=;/);
    expect(cleared).toMatch(/;\s*Path=\/care(;|$)/);
    expect(cleared).toMatch(/;\s*Expires=Thu, 01 Jan 1970/i);
  });

  it('a malformed staff email with the right credentials is refused as the email it is (400), not as the credentials, and starts no session', async () => {
    const before = await sessionRows();
    for (const email of ['not-an-email', '<script>x</script>@a.b', `${'a'.repeat(300)}@bank.test`]) {
      const { posted } = await signIn(app.baseUrl, email);
      const page = await posted.text();
      expect({
        status: posted.status,
        emailNamed: page.includes('The staff email is not an email address'),
        blamesSecret: page.includes('wrong secret'),
      }).toEqual({
        status: 400,
        emailNamed: true,
        blamesSecret: false,
      });
    }
    expect(await sessionRows()).toBe(before);
    expect((await signIn(app.baseUrl, 'agent@bank.test')).posted.status).toBe(303);
  });

  it("a sign-in posted without the page's cookie, or with another page's token, is 'Form expired' (no login CSRF)", async () => {
    const first = await fetch(`${app.baseUrl}/care/sign-in`);
    const second = await fetch(`${app.baseUrl}/care/sign-in`);
    const cookieOf = (res: Response) =>
      res.headers
        .getSetCookie()
        .map((c) => c.split(';', 1)[0])
        .join('; ');
    const tokenOf = async (res: Response) => /name="_csrf" value="([^"]+)"/.exec(await res.text())?.[1] as string;
    const [firstToken, secondToken] = [await tokenOf(first), await tokenOf(second)];
    for (const { cookie, token } of [
      { cookie: '', token: firstToken },
      { cookie: cookieOf(first), token: secondToken },
      { cookie: cookieOf(first).replace(/=([^;]+)/, '=forged.value'), token: firstToken },
    ]) {
      const res = await fetch(`${app.baseUrl}/care/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ clientId: PARTNERS.care.clientId, clientSecret: PARTNERS.care.clientSecret, staffEmail: '', _csrf: token }),
      });
      expect({ status: res.status, expired: (await res.text()).includes('Form expired') }).toEqual({ status: 403, expired: true });
    }
  });

  it('a percent-encoded console path, which routing decodes to the console, gets the console headers', async () => {
    for (const route of ['/%63are/sign-in', '/c%61re/sign-in', '/%63are/nothing-here']) {
      const res = await fetch(`${app.baseUrl}${route}`);
      expect({ route, type: res.headers.get('content-type') }).toEqual({ route, type: 'text/html; charset=utf-8' });
      expect({
        route,
        csp: res.headers.get('content-security-policy'),
        frame: res.headers.get('x-frame-options'),
        sniff: res.headers.get('x-content-type-options'),
        cache: res.headers.get('cache-control'),
      }).toEqual({ route, csp: expect.stringContaining("default-src 'none'"), frame: 'DENY', sniff: 'nosniff', cache: 'no-store' });
    }
  });

  it('an API call gets neither a session nor the console headers, even with a session cookie', async () => {
    const { posted } = await signIn();
    const session = posted.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith('care_session='))
      ?.split(';', 1)[0];
    expect(session).toBeDefined();
    const client = app.client();
    const res = await fetch(`${app.baseUrl}/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000`, {
      headers: { authorization: `Bearer ${await client.accessToken()}`, cookie: session as string },
    });
    expect(res.status).toBe(404);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(res.headers.get('content-security-policy')).toBeNull();
  });

  it('the sandbox sign-in counts wrong secrets as the token endpoint does (CONTRACT sections 3, 12): beyond TOKEN_RATE_LIMIT a minute per client and address, even the right one is refused', async () => {
    const limited = await startTestApp('console-http-limit', { env: { TOKEN_RATE_LIMIT: '2' } });
    try {
      const attempt = async (clientSecret: string) => {
        const page = await fetch(`${limited.baseUrl}/care/sign-in`);
        const cookie = page.headers
          .getSetCookie()
          .map((c) => c.split(';', 1)[0])
          .join('; ');
        const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] as string;
        const res = await fetch(`${limited.baseUrl}/care/sign-in`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ clientId: PARTNERS.care.clientId, clientSecret, staffEmail: '', _csrf: csrf }),
        });
        return { status: res.status, retryAfter: res.headers.get('retry-after') };
      };
      expect(await attempt('wrong-1')).toMatchObject({ status: 401 });
      expect(await attempt('wrong-2')).toMatchObject({ status: 401 });
      expect(await attempt(PARTNERS.care.clientSecret)).toEqual({ status: 429, retryAfter: expect.stringMatching(/^\d+$/) });
      // The same counter as the token endpoint's: the care client's token requests from here are refused too.
      const token = await fetch(`${limited.baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: PARTNERS.care.clientId, client_secret: PARTNERS.care.clientSecret }),
      });
      expect(token.status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("an unknown path under /care is the console's HTML 404 page, under its headers; elsewhere the JSON envelope", async () => {
    for (const route of ['/care/nothing-here', '/care/accounts/x/y/z', '/care/assets/missing.css']) {
      const res = await fetch(`${app.baseUrl}${route}`);
      expect({ route, status: res.status, type: res.headers.get('content-type') }).toEqual({ route, status: 404, type: 'text/html; charset=utf-8' });
      expect(await res.text()).toContain('<h1>Not found</h1>');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    const api = await fetch(`${app.baseUrl}/v1/nothing-here`);
    expect({ status: api.status, type: api.headers.get('content-type') }).toEqual({ status: 404, type: 'application/json; charset=utf-8' });
  });
});
