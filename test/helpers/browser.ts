import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServer, type TestServer } from './server';

/** Debian's chromium (scripts/setup-test-deps.sh installs it); never a downloaded browser. */
export const CHROMIUM = process.env.HEARTH_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(__dirname, '..', '..', 'test-results', 'browser');

/**
 * Launch headless chromium as this machine allows it: no sandbox (tests run as root), no background
 * networking (the network is closed; chromium would keep trying Google's hosts).
 */
export async function openBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`no browser at ${CHROMIUM}: install Debian's chromium (apt-get install chromium, or run scripts/setup-test-deps.sh)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** Sign in through the sign-in form, as a person does. */
export async function signIn(page: Page, server: TestServer, user: { name: string; password: string }): Promise<void> {
  await page.goto(new URL('/user/login', server.url).toString());
  await page.getByLabel('User name or email').fill(user.name);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/user/login'));
}

/** A screenshot kept under test-results/browser/ (the README's screenshots come from these). */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Run a browser step; when it fails, save a screenshot of the page named after the step before
 * rethrowing, so a failure in CI can be seen.
 */
export async function step<T>(page: Page, name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    await screenshot(page, `FAILED-${name.replace(/[^a-z0-9-]+/gi, '-')}`).catch(() => undefined);
    throw err;
  }
}

/** The usual window of the browser tests. */
export const DESKTOP = { width: 1280, height: 900 };

/**
 * The server and the browser of a browser test file, started before the file's own setup (its
 * first `beforeAll`) and closed after its tests, the browser first.
 */
export function browserSuite(config: Record<string, unknown> = {}): {
  readonly server: TestServer;
  readonly browser: Browser;
  /** An absolute URL of a site path on the server. */
  url(path: string): string;
} {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    server = await startServer(config);
    browser = await openBrowser();
  }, 90000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (!value) throw new Error('the browser suite is not started yet: use it in a test or a hook');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get browser() {
      return started(browser);
    },
    url: (path: string) => new URL(path, started(server).url).toString(),
  };
}
