import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestServer } from './server';

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
