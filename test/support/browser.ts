import * as fs from 'node:fs';
import * as path from 'node:path';
import chromium from '@sparticuz/chromium';
import { Browser, chromium as playwright, Page } from 'playwright-core';

/** Where the browser specs write screenshots of the console's pages (gitignored; the README links it). */
export const SCREENSHOT_DIR = path.join(__dirname, '..', 'artifacts', 'care-console');

const DROPPED_ARGS = ['--single-process', '--disable-web-security', '--allow-running-insecure-content'];

/**
 * A real headless Chromium: the binary ships inside @sparticuz/chromium (unpacked to /tmp on first
 * use), driven by playwright-core. No background networking: the machine's network is closed.
 */
export async function launchChromium(): Promise<Browser> {
  return playwright.launch({
    executablePath: await chromium.executablePath(),
    // Its Lambda-minded --single-process would end the browser with the first closed context; the
    // security relaxations are not wanted when the console's CSP and CSRF are under test.
    args: [
      ...chromium.args.filter((arg) => !DROPPED_ARGS.includes(arg)),
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
    headless: true,
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** axe-core injected into the page (DevTools evaluation, so the page's CSP stays strict); serious and critical violations. */
export async function seriousA11yViolations(page: Page): Promise<Array<{ id: string; impact: string | null; help: string; targets: string }>> {
  const source = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const violations = (await page.evaluate(async () => {
    const axe: { run(): Promise<{ violations: unknown[] }> } = Reflect.get(globalThis, 'axe');
    return (await axe.run()).violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: JSON.stringify(v.nodes.map((n) => n.target)) }));
}

/** Keyboard only: Tab (forward) until the focused element matches, as a person would. */
export async function tabTo(page: Page, selector: string, maxTabs = 40): Promise<void> {
  for (let i = 0; i < maxTabs; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate((s) => {
      const doc: { activeElement: { matches(q: string): boolean } | null } = Reflect.get(globalThis, 'document');
      return doc.activeElement?.matches(s) ?? false;
    }, selector);
    if (focused) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}
