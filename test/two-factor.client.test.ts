import type { Browser, Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { startServer, type TestServer } from './helpers/server';
import { openBrowser, screenshot, signIn, step } from './helpers/browser';

/**
 * Two-factor authentication in Debian's chromium: enrol from the settings' Security tab with a
 * code computed from the secret on the page, sign out, sign in again through the code step.
 * The pages load nothing the strict CSP refuses (no console errors).
 */
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await openBrowser();
}, 90000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const codeAt = (secret: string, offsetSteps: number) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({
    timestamp: Date.now() + offsetSteps * 30_000,
  });

test('enrol from the Security tab, then sign in with the code', async () => {
  const user = await server.user('tf-browser');
  const page: Page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));

  await step(page, 'sign-in', () => signIn(page, server, user));
  const secret = await step(page, 'enrol', async () => {
    await page.goto(new URL('/user/settings', server.url).toString());
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByRole('link', { name: 'Enroll in two-factor authentication' }).click();
    const shown = (await page.locator('#two-factor-secret').textContent())!.trim();
    // The QR code renders (a loaded image has a natural width).
    expect(
      await page.locator('#two-factor-qr').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    // The code of the previous step, so that the sign-in below has a newer one.
    await page.getByLabel('Code the app shows now').fill(codeAt(shown, -1));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('#two-factor-scratch').waitFor();
    await screenshot(page, 'two-factor-recovery-code');
    return shown;
  });
  await step(page, 'sign-out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/');
  });
  await step(page, 'second-step', async () => {
    await page.goto(new URL('/user/login', server.url).toString());
    await page.getByLabel('User name or email').fill(user.name);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/user/two_factor');
    await page.getByLabel('Code from your authenticator app').fill(codeAt(secret, 0));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });
  expect(errors).toEqual([]);
  await page.close();
});
