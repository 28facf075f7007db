import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import type { TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';
import { browserSuite, DESKTOP, screenshot, signIn, step } from './helpers/browser';
import { waitFor } from './helpers/wait';

/**
 * Repository settings in a real browser: the Settings tab, turning every feature off (refused, with
 * the reason on the form), a webhook to a listener on 127.0.0.1 with a test delivery that arrives
 * and shows in the history, and a protected branch that refuses a push from the real git client.
 * Saves `repo-settings.png`, `repo-settings-webhook.png` and `repo-settings-branches.png`.
 */
let server: TestServer;
let browser: Browser;
let page: Page;
let alice: { name: string; password: string; id: number };
let sandbox: ReturnType<typeof gitSandbox>;

/** A webhook receiver: every request it got, answered 200. */
const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
let listener: http.Server;
let listenerUrl = '';

// Webhooks may reach loopback addresses only because this configuration says so.
const suite = browserSuite({ webhook: { ALLOWED_HOST_LIST: 'loopback', RETRY_BACKOFF: 0.2, POLL_INTERVAL: 0.1, DELIVER_TIMEOUT: 2 } });
beforeAll(async () => {
  listener = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/hook`;
  server = suite.server;
  browser = suite.browser;
  alice = await server.user('alice');
  const res = await server.api('POST', '/user/repos', {
    basic: [alice.name, alice.password],
    body: { name: 'beacon', auto_init: true, default_branch: 'main', description: 'A light on the hill' },
  });
  expect(res.status).toBe(201);
  sandbox = gitSandbox();
  page = await browser.newPage({ viewport: DESKTOP });
}, 90000);

afterAll(async () => {
  sandbox?.cleanup();
  await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
});

const { url } = suite;

test('settings: features stay on, a webhook’s test delivery arrives and is in the history, a protected branch refuses a push', async () => {
  await step(page, 'sign-in', () => signIn(page, server, alice));

  await step(page, 'settings-tab', async () => {
    await page.goto(url('/alice/beacon'));
    await page.getByRole('navigation', { name: 'Repository' }).getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(/\/alice\/beacon\/settings$/);
    await page.getByRole('heading', { level: 1, name: 'Repository settings' }).waitFor();
    await screenshot(page, 'repo-settings');
  });

  await step(page, 'all-features-off', async () => {
    const features = page.getByRole('group', { name: 'Features' });
    for (const box of await features.getByRole('checkbox').all()) await box.uncheck();
    await page.getByRole('button', { name: 'Update features' }).click();
    await page.getByRole('alert').filter({ hasText: 'must stay enabled' }).waitFor();
    // The form is as it was sent, and nothing changed.
    await expect(page.getByLabel(/^Code —/).isChecked()).resolves.toBe(false);
    await page.goto(url('/alice/beacon/settings'));
    await expect(page.getByLabel(/^Code —/).isChecked()).resolves.toBe(true);
  });

  await step(page, 'add-webhook', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('link', { name: 'Add webhook' }).click();
    await page.getByLabel('Target URL', { exact: true }).fill(listenerUrl);
    await page.getByLabel('Secret', { exact: true }).fill('a shared secret');
    await page.getByLabel('Push events', { exact: true }).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByText('The webhook has been added.').waitFor();
    await page.getByText('No deliveries yet.').waitFor();
  });

  await step(page, 'test-delivery', async () => {
    await page.getByRole('button', { name: 'Test delivery' }).click();
    await page.getByText('A test delivery has been queued').waitFor();
    const arrived = await waitFor('the test delivery at the listener', () => received.find((r) => r.headers['x-gitea-event'] === 'push'));
    expect(JSON.parse(arrived.body)).toMatchObject({ ref: 'refs/heads/main', repository: { full_name: 'alice/beacon' } });
    expect(arrived.headers['x-gitea-signature']).toMatch(/^[0-9a-f]{64}$/);
    const uuid = String(arrived.headers['x-gitea-delivery']);
    // The history shows it once the outcome is recorded.
    await waitFor('the delivery in the history', async () => {
      await page.reload();
      return (await page.getByText('Succeeded').count()) > 0 ? true : null;
    });
    const delivery = page.locator('li.delivery-row').filter({ hasText: uuid });
    await expect(delivery.textContent()).resolves.toContain('HTTP 200');
    await delivery.getByText('Request and response').click();
    await delivery.getByText('thanks').waitFor();
    await screenshot(page, 'repo-settings-webhook');
    // Redeliver: the same delivery (same UUID) arrives again.
    await delivery.getByRole('button', { name: `Redeliver ${uuid}` }).click();
    await page.getByText('The delivery has been queued again.').waitFor();
    await waitFor('the redelivery at the listener', () =>
      received.filter((r) => r.headers['x-gitea-delivery'] === uuid).length >= 2 ? true : null,
    );
  });

  await step(page, 'protect-branch', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Branches' }).click();
    await page.getByRole('link', { name: 'Add branch protection rule' }).click();
    await page.getByLabel(/^Branch name or pattern/).fill('main');
    await page.getByLabel(/^Disable push/).check();
    await page.getByLabel('Required approvals').fill('1');
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('The branch protection rule has been saved.').waitFor();
    await expect(page.locator('li.settings-row').filter({ hasText: 'main' }).textContent()).resolves.toContain('Pushing is disabled');
    await screenshot(page, 'repo-settings-branches');
  });

  await step(page, 'push-refused', async () => {
    const remote = cloneUrl(server.url, 'alice/beacon.git', alice.name, alice.password);
    const clone = await sandbox.git(['clone', remote, 'beacon']);
    expect(clone.status).toBe(0);
    const dir = `${sandbox.dir}/beacon`;
    expect((await sandbox.git(['commit', '--allow-empty', '-m', 'straight to main'], dir)).status).toBe(0);
    const push = await sandbox.git(['push', 'origin', 'main'], dir);
    expect(push.status).not.toBe(0);
    expect(push.stderr).toMatch(/branch main is protected/);
    expect(push.stderr).toMatch(/\[remote rejected\] main -> main/);
    // Unprotected branches still take pushes.
    expect((await sandbox.git(['push', 'origin', 'HEAD:refs/heads/feature'], dir)).status).toBe(0);
  });

  await step(page, 'narrow-screen', async () => {
    // Readable on a 375 px phone: nothing wider than the screen.
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of ['/alice/beacon/settings', '/alice/beacon/settings/branches/edit', '/alice/beacon/settings/hooks']) {
      await page.goto(url(path));
      await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(375);
    }
  });
}, 120000);
