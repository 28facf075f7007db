import type { Browser, Page } from 'playwright-core';
import type { TestServer } from './helpers/server';
import { browserSuite, DESKTOP, screenshot, signIn, step } from './helpers/browser';

/**
 * Access tokens in a real browser: the scope warning is shown while no scope is chosen and keeps
 * an empty form from being sent; with a scope the token is created, shown once, and works against
 * `/api/v1/user`. Then the notifications inbox: a thread marked read; and a password change. Saves
 * the screenshots `user-settings-applications.png`, `user-settings-token-created.png`,
 * `notifications.png` and `user-settings-account.png`.
 */
let server: TestServer;
let browser: Browser;
let page: Page;
let alice: { name: string; password: string; id: number };

const suite = browserSuite();
beforeAll(async () => {
  server = suite.server;
  browser = suite.browser;
  alice = await server.user('alice');
  page = await browser.newPage({ viewport: DESKTOP });
}, 90000);

const { url } = suite;

test('create a token: the scope warning first, then with a scope; the token shown once works against the API', async () => {
  await step(page, 'sign-in', () => signIn(page, server, alice));

  const warning = page.locator('#scope-warning');
  await step(page, 'warning-without-scope', async () => {
    await page.goto(url('/user/settings/applications'));
    await page.getByRole('heading', { name: 'Access tokens' }).waitFor();
    await warning.waitFor({ state: 'visible' });
    expect(await warning.textContent()).toContain('Select at least one scope');
    await page.getByLabel('Token name').fill('deploy-script');
    await page.getByRole('button', { name: 'Generate token' }).click();
    // Nothing was sent: still the form, the warning marked as the reason, no token shown.
    await page.locator('#scope-warning.refused').waitFor();
    expect(page.url()).toBe(url('/user/settings/applications'));
    expect(await page.locator('#new-token').count()).toBe(0);
    await screenshot(page, 'user-settings-applications');
  });

  await step(page, 'create-with-scope', async () => {
    await page.getByLabel('user', { exact: true }).selectOption('read:user');
    await warning.waitFor({ state: 'hidden' });
    await page.getByLabel('repository', { exact: true }).selectOption('write:repository');
    await page.getByRole('button', { name: 'Generate token' }).click();
    await page.getByText('it will not be shown again').waitFor();
    await screenshot(page, 'user-settings-token-created');
  });

  const secret = await page.locator('#new-token').inputValue();
  expect(secret).toMatch(/^[0-9a-f]{40}$/);
  expect(page.url()).not.toContain(secret);

  await step(page, 'token-works', async () => {
    const answer = await page.evaluate(async (token) => {
      const res = await fetch('/api/v1/user', { headers: { Authorization: `token ${token}` } });
      return { status: res.status, body: (await res.json()) as { login: string } };
    }, secret);
    expect(answer.status).toBe(200);
    expect(answer.body.login).toBe('alice');
  });

  await step(page, 'shown-once', async () => {
    await page.goto(url('/user/settings/applications'));
    const row = page.locator('.token-list li', { hasText: 'deploy-script' });
    await row.waitFor();
    expect(await row.textContent()).toContain(`…${secret.slice(-8)}`);
    expect(await page.content()).not.toContain(secret);
  });
});

test('the notifications inbox: a thread links to its issue and is marked read', async () => {
  const bob = await server.user('bob');
  const basic: [string, string] = [alice.name, alice.password];
  expect((await server.api('POST', '/user/repos', { basic, body: { name: 'garden', auto_init: true } })).status).toBe(201);
  const issue = await server.api('POST', '/repos/alice/garden/issues', {
    basic: [bob.name, bob.password],
    body: { title: 'Water the roses' },
  });
  expect(issue.status).toBe(201);

  await step(page, 'inbox', async () => {
    await page.goto(url('/notifications'));
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    const link = page.getByRole('link', { name: 'Water the roses' });
    expect(await link.getAttribute('href')).toBe('/alice/garden/issues/1');
    await screenshot(page, 'notifications');
    await page.getByRole('button', { name: 'Mark as read: Water the roses' }).click();
    await page.getByText('No unread notifications.').waitFor();
    await page.getByRole('link', { name: '1 Read' }).click();
    await page.getByRole('link', { name: 'Water the roses' }).waitFor();
  });
});

test('change the password: the current one first; afterwards the new one signs in', async () => {
  const carol = await server.user('carol');
  const own = await browser.newPage({ viewport: DESKTOP });
  await step(own, 'carol-sign-in', () => signIn(own, server, carol));
  await step(own, 'change-password', async () => {
    await own.goto(url('/user/settings/account'));
    await own.getByLabel('Current password').fill(carol.password);
    await own.getByLabel('New password', { exact: true }).fill('a-brand-new-secret');
    await own.getByLabel('Confirm the new password').fill('a-brand-new-secret');
    await own.getByRole('button', { name: 'Update password' }).click();
    await own.getByText('Your password was changed.').waitFor();
    await screenshot(own, 'user-settings-account');
  });
  const fresh = await browser.newPage({ viewport: DESKTOP });
  await step(fresh, 'sign-in-with-new-password', () => signIn(fresh, server, { name: carol.name, password: 'a-brand-new-secret' }));
  expect(new URL(fresh.url()).pathname).toBe('/');
  await own.close();
  await fresh.close();
});
