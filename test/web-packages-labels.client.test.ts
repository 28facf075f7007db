import type { Browser, Page } from 'playwright-core';
import type { TestServer } from './helpers/server';
import { browserSuite, DESKTOP, screenshot, signIn, step } from './helpers/browser';
import { makeCrate, publishBody, publishMeta } from '../plugins/cargo/test/helpers';

/**
 * Packages, labels and milestones in a real browser: a generic package and a cargo crate published
 * through their registries are found from the profile, the crate's page shows the setup for this
 * server, a generic version is deleted with its typed confirmation; a label and a milestone are
 * created with their forms.
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
  const token = await server.token(alice, ['write:package', 'write:repository', 'write:issue']);
  const put = async (p: string, body: Buffer, auth = `token ${token}`) => {
    const res = await fetch(new URL(`api/packages/alice/${p}`, server.url), {
      method: 'PUT',
      headers: { Authorization: auth },
      body: new Uint8Array(body),
    });
    if (res.status >= 300) throw new Error(`${p}: ${res.status} ${await res.text()}`);
  };
  await put('generic/garden-tools/1.0.0/rake.tar.gz', Buffer.from('a rake\n'));
  await put('generic/garden-tools/1.1.0/rake.tar.gz', Buffer.from('a better rake\n'));
  await put('cargo/api/v1/crates/new', publishBody(publishMeta('seedling', '0.2.0'), makeCrate('seedling', '0.2.0')), token);
  const res = await server.api('POST', '/user/repos', { token, body: { name: 'garden', auto_init: true, default_branch: 'main' } });
  expect(res.status).toBe(201);
  const issue = await server.api('POST', '/repos/alice/garden/issues', { token, body: { title: 'Tomatoes wilt' } });
  expect(issue.status).toBe(201);

  page = await browser.newPage({ viewport: DESKTOP });
}, 90000);

const { url } = suite;

test('find published packages, read the crate’s setup, delete a generic version', async () => {
  await step(page, 'sign-in', () => signIn(page, server, alice));

  await step(page, 'package-list', async () => {
    await page.goto(url('/alice'));
    await page.getByRole('navigation', { name: 'Profile' }).getByRole('link', { name: 'Packages' }).click();
    await page.getByRole('heading', { name: 'Packages', level: 1 }).waitFor();
    const rows = page.locator('ul.packages > li');
    expect(await rows.count()).toBe(2);
    expect(await rows.filter({ hasText: 'garden-tools' }).textContent()).toContain('1.1.0 · 2 versions');
    await page.getByLabel('Type').selectOption('cargo');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/type=cargo/);
    expect(await page.locator('ul.packages > li').count()).toBe(1);
    await screenshot(page, 'packages-list');
  });

  await step(page, 'crate-setup', async () => {
    await page.getByRole('link', { name: 'seedling' }).click();
    await page.getByRole('heading', { name: /seedling/, level: 1 }).waitFor();
    const setup = await page.locator('pre.setup').allTextContents();
    expect(setup[0]).toContain(`index = "sparse+${server.url}api/packages/alice/cargo/"`);
    expect(setup[1]).toBe('cargo add seedling@0.2.0 --registry hearth');
    expect(await page.locator('ul.package-files').textContent()).toContain('seedling-0.2.0.crate');
    await screenshot(page, 'package-cargo');
    // Readable on a phone: nothing wider than the screen (long setup lines and hashes wrap or scroll in their box).
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'package-cargo-375');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await step(page, 'delete-version', async () => {
    await page.goto(url('/alice/-/packages/generic/garden-tools/1.0.0'));
    expect(await page.locator('pre.setup').textContent()).toBe(
      `curl -OJ ${server.url}api/packages/alice/generic/garden-tools/1.0.0/rake.tar.gz`,
    );
    await page.locator('summary', { hasText: 'Delete this version' }).click();
    await page.getByLabel('Type the version, 1.0.0, to confirm').fill('1.0.0');
    await page.getByRole('button', { name: 'Delete this version' }).click();
    await page.waitForURL(/\/alice\/-\/packages\?deleted=1$/);
    await page.getByText('The package version was deleted.').waitFor();
    expect(await page.locator('ul.packages > li').filter({ hasText: 'garden-tools' }).textContent()).toContain('1.1.0 · 1 version');
    expect((await server.api('GET', '/packages/alice/generic/garden-tools/1.0.0')).status).toBe(404);
  });
});

test('create a label and a milestone', async () => {
  await step(page, 'new-label', async () => {
    await page.goto(url('/alice/garden/issues'));
    await page.getByRole('link', { name: 'Labels', exact: true }).first().click();
    await page.getByRole('heading', { name: 'Labels', level: 1 }).waitFor();
    await page.getByText('New label', { exact: true }).click();
    await page.locator('#label-name-new').fill('kind/bug');
    await page.locator('#label-exclusive-new').check();
    await page.locator('#label-description-new').fill('Something does not grow');
    await page.locator('#label-color-new').fill('#d73a4a');
    await page.getByRole('button', { name: 'Create label' }).click();
    await page.getByText('The label was created.').waitFor();
    const row = page.locator('li.label-row', { hasText: 'kind/bug' });
    expect(await row.textContent()).toContain('Exclusive scope kind');
    expect(await row.locator('circle').getAttribute('fill')).toBe('#d73a4a');
    await screenshot(page, 'labels');
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await step(page, 'new-milestone', async () => {
    await page.getByRole('link', { name: 'Milestones', exact: true }).click();
    await page.getByRole('link', { name: 'New milestone' }).click();
    await page.getByLabel('Title').fill('Summer harvest');
    await page.getByLabel(/Due date/).fill('2099-08-31');
    await page.getByLabel('Description').fill('Everything **ripe** by then.');
    await page.getByRole('button', { name: 'Create milestone' }).click();
    await page.getByText('The milestone was created.').waitFor();
    const row = page.locator('li.milestone-row', { hasText: 'Summer harvest' });
    expect(await row.textContent()).toContain('Due 2099-08-31');
    expect(await row.textContent()).toContain('0% complete');
    expect(await row.locator('.markdown strong').textContent()).toBe('ripe');
    await screenshot(page, 'milestones');
  });
});
