import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { EnrollmentRequestFactory, uniqueSsn } from './support/enrollment-factory';
import { launchChromium, screenshot, seriousA11yViolations, tabTo } from './support/browser';
import { PARTNERS, startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

/**
 * The care console in a real Chromium (CONTRACT section 14): sandbox sign-in, search through the
 * blind indexes, an OFAC hold cleared with a reason, an audited SSN reveal, CSRF refusal, a
 * keyboard-only path, and axe-core on the main pages. Screenshots go to test/artifacts/care-console.
 */
describe('Care console in a browser (e2e)', () => {
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    [app, browser] = await Promise.all([
      startTestApp('care_console_browser', { env: { OFAC_LIST_DIR: path.join(__dirname, 'fixtures', 'ofac') } }),
      launchChromium(),
    ]);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function enroll(firstName: string, lastName: string, ssn = uniqueSsn()) {
    const res = await app
      .client()
      .post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { firstName, lastName, identifyingData: { dateOfBirth: '1984-07-09', ssn } } }));
    return { ssn, accountId: (res.body.account as { accountIdentifier: string }).accountIdentifier, body: res.body };
  }

  const auditRows = () => page.locator('#audit-table tbody tr').allInnerTexts();

  it('signs in on the sandbox page with the care client credentials', async () => {
    await page.goto(`${app.baseUrl}/care`);
    expect(page.url()).toBe(`${app.baseUrl}/care/sign-in`);
    await screenshot(page, 'sign-in');
    await page.getByLabel('Care client id').fill(PARTNERS.care.clientId);
    await page.getByLabel('Care client secret').fill(PARTNERS.care.clientSecret);
    await page.getByLabel('Your email (recorded in the audit trail)').fill('agent.smith@bank.test');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(page.url()).toBe(`${app.baseUrl}/care`);
    expect(await page.locator('header').innerText()).toContain('agent.smith@bank.test');
  });

  it('wrong credentials are refused', async () => {
    const other = await context.browser()!.newContext();
    const p = await other.newPage();
    await p.goto(`${app.baseUrl}/care/sign-in`);
    await p.getByLabel('Care client id').fill('acme');
    await p.getByLabel('Care client secret').fill(PARTNERS.acme.clientSecret);
    const response = await Promise.all([p.waitForResponse((r) => r.request().method() === 'POST'), p.getByRole('button', { name: 'Sign in' }).click()]);
    expect(response[0].status()).toBe(401);
    expect(await p.locator('[role=alert]').innerText()).toContain('Sign-in failed');
    await other.close();
  });

  it('finds an account held by OFAC by its full SSN, clears it with a reason, and shows the new status and audit entry', async () => {
    const held = await enroll('Ignatius', 'Thornwick');
    expect(held.body.responseDetails).toEqual([expect.objectContaining({ code: 5, subCode: 370 })]);
    await page.goto(`${app.baseUrl}/care`);
    await page.getByLabel('Search by').selectOption('ssn');
    await page.getByLabel('Value').fill(held.ssn);
    await page.getByRole('button', { name: 'Search' }).click();
    expect(page.url()).toBe(`${app.baseUrl}/care/search`);
    await page.getByRole('link', { name: held.accountId }).click();
    expect(await page.locator('#account-status').innerText()).toBe('pending');
    expect(await page.locator('#account-status-reason').innerText()).toBe('ofacReview');
    expect(await page.locator('#masked-ssn').innerText()).toBe(`•••-••-${held.ssn.slice(-4)}`);
    expect(await page.content()).not.toContain(held.ssn);
    expect((await auditRows()).join('\n')).toContain('ofacHold');
    await screenshot(page, 'account-held');

    await page.getByRole('link', { name: 'Clear OFAC hold' }).click();
    await page.getByLabel('Reason (required, recorded in the audit trail)').fill('Reviewed against the SDN entry: different date of birth, not a match.');
    await screenshot(page, 'confirm-ofac-clear');
    await page.getByRole('button', { name: 'Confirm: Clear OFAC hold' }).click();
    expect(page.url()).toBe(`${app.baseUrl}/care/accounts/${held.accountId}`);
    expect(await page.locator('[role=status]').first().innerText()).toContain('Clear OFAC hold: done.');
    expect(await page.locator('#account-status').innerText()).toBe('normal');
    const latest = (await auditRows())[0];
    expect(latest).toContain('ofacClear');
    expect(latest).toContain('agent.smith@bank.test');
    expect(latest).toContain('not a match');
    await screenshot(page, 'account-cleared');

    const api = await app.client('care').get(`/v1/care/accounts/${held.accountId}/audit`);
    const entry = (api.body.auditTrail as Array<Record<string, unknown>>).find((e) => e.action === 'ofacClear');
    expect(entry).toMatchObject({
      actor: 'console:agent.smith@bank.test',
      staff: { subject: 'sandbox:care', email: 'agent.smith@bank.test' },
      reason: expect.stringContaining('not a match'),
      before: { status: 'pending' },
      after: { status: 'normal' },
    });
  });

  it('an SSN or phone number is never searched through a link (it would sit in history and logs)', async () => {
    const res = await page.request.get(`${app.baseUrl}/care/search?kind=ssn&q=${uniqueSsn()}`);
    expect(res.status()).toBe(400);
    expect(await res.text()).toContain('the value is never put in a link');
  });

  it('reveals an SSN on request, and the reveal is in the audit trail with who and when', async () => {
    const { ssn, accountId } = await enroll('Maria', 'Lopez');
    await page.goto(`${app.baseUrl}/care/accounts/${accountId}`);
    expect(await page.content()).not.toContain(ssn);
    await page.getByRole('button', { name: 'Reveal SSN' }).click();
    expect(await page.locator('#revealed-ssn').innerText()).toBe(ssn);
    expect((await auditRows())[0]).toMatch(/pii\.reveal[\s\S]*agent\.smith@bank\.test[\s\S]*ssn/);
    const api = await app.client('care').get(`/v1/care/accounts/${accountId}/audit`);
    expect(api.body.auditTrail).toEqual([
      expect.objectContaining({
        action: 'pii.reveal',
        staff: { subject: 'sandbox:care', email: 'agent.smith@bank.test' },
        detail: expect.objectContaining({ field: 'ssn' }),
        at: expect.any(String),
      }),
    ]);
    await page.goto(`${app.baseUrl}/care/accounts/${accountId}`);
    expect(await page.content()).not.toContain(ssn);
  });

  it('a state-changing POST without the CSRF token is refused (403) and changes nothing', async () => {
    const { accountId } = await enroll('Nora', 'Quist');
    const res = await page.request.post(`${app.baseUrl}/care/accounts/${accountId}/operations/lock`, { form: { reason: 'no token here' }, maxRedirects: 0 });
    expect(res.status()).toBe(403);
    expect(await res.text()).toContain('security token');
    const forged = await page.request.post(`${app.baseUrl}/care/accounts/${accountId}/operations/lock`, {
      form: { reason: 'forged token', _csrf: 'forged' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    const view = await app.client('care').get(`/v1/care/accounts/${accountId}`);
    expect(view.body.account).toMatchObject({ status: 'normal' });
  });

  it('keyboard only: search, open the account, lock it with a reason', async () => {
    const { accountId } = await enroll('Kiran', 'Patel');
    await page.goto(`${app.baseUrl}/care`);
    await tabTo(page, '#kind');
    await page.keyboard.press('ArrowDown'); // paymentIdentifier
    await page.keyboard.press('ArrowUp'); // back to accountIdentifier
    await tabTo(page, '#q');
    await page.keyboard.type(accountId);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/care\/search/);
    await tabTo(page, `a[href="/care/accounts/${accountId}"]`);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${app.baseUrl}/care/accounts/${accountId}`);
    await tabTo(page, `a[href$="/operations/lock"]`);
    await page.keyboard.press('Enter');
    await page.waitForURL(/operations\/lock$/);
    await tabTo(page, '#reason');
    await page.keyboard.type('Customer called: lost phone with the app signed in.');
    await tabTo(page, 'button[type=submit]:not(header button)');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${app.baseUrl}/care/accounts/${accountId}`);
    expect(await page.locator('#account-status').innerText()).toBe('locked');
    expect((await auditRows())[0]).toContain('lost phone');
  });

  it('axe-core finds no serious or critical violation on the sign-in, search, account and confirmation pages, at laptop and tablet widths', async () => {
    const { accountId } = await enroll('Ana', 'Ruiz');
    const anonymous = await browser.newPage();
    await anonymous.goto(`${app.baseUrl}/care/sign-in`);
    expect(await seriousA11yViolations(anonymous)).toEqual([]);
    await anonymous.close();
    for (const width of [1280, 768]) {
      await page.setViewportSize({ width, height: 1000 });
      for (const url of [
        `/care/search?kind=accountIdentifier&q=${accountId}`,
        `/care/accounts/${accountId}`,
        `/care/accounts/${accountId}/operations/fraudBlock`,
      ]) {
        await page.goto(`${app.baseUrl}${url}`);
        expect({ url, width, violations: await seriousA11yViolations(page) }).toEqual({ url, width, violations: [] });
      }
      await screenshot(page, `confirm-fraud-block-${width}`);
    }
    await page.goto(`${app.baseUrl}/care/accounts/${accountId}`);
    await screenshot(page, 'account-tablet');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.baseUrl}/care/search?kind=accountIdentifier&q=${accountId}`);
    await screenshot(page, 'search');
  });

  it('every console page carries a strict CSP (no inline script or style) and the session cookie is HttpOnly, SameSite=Lax, scoped to /care', async () => {
    const res = await page.request.get(`${app.baseUrl}/care`);
    const csp = res.headers()['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const cookie = (await context.cookies()).find((c) => c.name === 'care_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/care' });
  });

  it('signs out: the session is gone and the console asks for a sign-in again', async () => {
    await page.goto(`${app.baseUrl}/care`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(page.url()).toBe(`${app.baseUrl}/care/sign-in`);
    await page.goto(`${app.baseUrl}/care/accounts/00000000-0000-0000-0000-000000000000`);
    expect(page.url()).toBe(`${app.baseUrl}/care/sign-in`);
  });
});
