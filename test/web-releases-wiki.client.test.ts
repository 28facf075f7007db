import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { TestServer } from './helpers/server';
import { browserSuite, DESKTOP, screenshot, signIn, step } from './helpers/browser';

/**
 * Releases and the wiki in a real browser: a release published with the form (notes previewed),
 * a file uploaded to it and downloaded back byte for byte; a wiki started, its first page written
 * (previewed), edited, and its revisions listed.
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
  const token = await server.token(alice, ['write:repository']);
  const res = await server.api('POST', '/user/repos', { token, body: { name: 'garden', auto_init: true, default_branch: 'main' } });
  if (res.status !== 201) throw new Error(`repository: ${res.status} ${res.text}`);
  // An earlier release, so the list shows which one is the latest.
  await server.api('POST', '/repos/alice/garden/releases', {
    token,
    body: { tag_name: 'v0.9', name: 'Seedlings', body: 'First sprouts.' },
  });
  page = await browser.newPage({ viewport: DESKTOP, acceptDownloads: true });
}, 90000);

const { url } = suite;

test('publish a release, attach a file, download it back byte for byte', async () => {
  const bytes = crypto.randomBytes(48 * 1024);
  await step(page, 'sign-in', () => signIn(page, server, alice));

  await step(page, 'new-release', async () => {
    await page.goto(url('/alice/garden'));
    await page
      .getByRole('navigation', { name: 'Repository' })
      .getByRole('link', { name: /Releases/ })
      .click();
    await page.getByRole('heading', { name: 'Releases', exact: true }).waitFor();
    await page.getByRole('link', { name: 'New release' }).click();
    await page.getByLabel('Tag name').fill('v1.0');
    expect(await page.getByLabel(/Target branch/).inputValue()).toBe('main');
    await page.getByLabel('Title').fill('First harvest');
    await page.getByLabel('Release notes').fill('Ripe **tomatoes** and:\n\n- basil\n- mint');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('.preview strong').waitFor();
    expect(await page.locator('.preview strong').textContent()).toBe('tomatoes');
    expect(await page.getByLabel('Tag name').inputValue()).toBe('v1.0');
    await page.getByRole('button', { name: 'Publish release' }).click();
    await page.waitForURL(/\/alice\/garden\/releases\/edit\/v1\.0\?created=1/);
  });

  await step(page, 'upload', async () => {
    const file = `${fs.mkdtempSync('/tmp/hearth-asset-')}/seeds.zip`;
    fs.writeFileSync(file, bytes);
    await page.getByLabel('Attach a file').setInputFiles(file);
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.waitForURL(/\?uploaded=1/);
    await page.getByText('The file was attached.').waitFor();
    expect(await page.locator('#assets li a').textContent()).toBe('seeds.zip');
    await screenshot(page, 'release-edit');
  });

  await step(page, 'release-page', async () => {
    await page.goto(url('/alice/garden/releases'));
    const latest = page.locator('article.release').first();
    expect(await latest.locator('h2').textContent()).toBe('First harvest');
    expect(await latest.locator('.badge').first().textContent()).toBe('Latest');
    expect(await latest.locator('.markdown strong').textContent()).toBe('tomatoes');
    expect(await latest.getByText('48 KiB').count()).toBe(1);
    await screenshot(page, 'releases');
    await latest.getByRole('link', { name: 'First harvest' }).click();
    await page.getByRole('heading', { name: 'First harvest', level: 1 }).waitFor();
    await screenshot(page, 'release');
  });

  await step(page, 'download', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'seeds.zip' }).click()]);
    expect(download.suggestedFilename()).toBe('seeds.zip');
    const saved = await download.path();
    expect(Buffer.compare(fs.readFileSync(saved), bytes)).toBe(0);
  });

  await step(page, 'narrow', async () => {
    // Readable on a phone: nothing wider than the screen.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(url('/alice/garden/releases/edit/v1.0'));
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await screenshot(page, 'release-edit-narrow');
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});

test('start the wiki, write and edit a page with a preview, and list its revisions', async () => {
  await step(page, 'wiki-start', async () => {
    await page.goto(url('/alice/garden'));
    await page.getByRole('navigation', { name: 'Repository' }).getByRole('link', { name: 'Wiki' }).click();
    await page.getByRole('heading', { name: 'Welcome to the wiki' }).waitFor();
    await page.getByRole('link', { name: 'Create the first page' }).click();
    await page.getByRole('heading', { name: 'New page' }).waitFor();
  });

  await step(page, 'wiki-new', async () => {
    await page.getByLabel('Title').fill('Home');
    await page.getByLabel('Content').fill('# Garden notes\n\nWater the *beans* daily.');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('.preview em').waitFor();
    expect(await page.locator('.preview em').textContent()).toBe('beans');
    await page.getByRole('button', { name: 'Create page' }).click();
    await page.waitForURL(/\/alice\/garden\/wiki\/Home\?saved=1$/);
    expect(await page.locator('.wiki-content h1').textContent()).toBe('Garden notes');
  });

  await step(page, 'wiki-edit', async () => {
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.getByRole('heading', { name: 'Edit Home' }).waitFor();
    expect(await page.getByLabel('Content').inputValue()).toContain('Water the *beans* daily.');
    await page.getByLabel('Content').fill('# Garden notes\n\nWater the *beans* every other day.');
    await page.getByLabel(/Commit message/).fill('Less water for the beans');
    await page.getByRole('button', { name: 'Save page' }).click();
    await page.waitForURL(/\/alice\/garden\/wiki\/Home\?saved=1$/);
    expect(await page.locator('.wiki-content p').textContent()).toBe('Water the beans every other day.');
    await screenshot(page, 'wiki-page');
  });

  await step(page, 'wiki-revisions', async () => {
    await page.getByRole('link', { name: '2 revisions' }).click();
    await page.getByRole('heading', { name: 'Revisions' }).waitFor();
    expect(await page.locator('.wiki-revisions .title').allTextContents()).toEqual(['Less water for the beans', "Add 'Home'"]);
    await screenshot(page, 'wiki-revisions');
  });
});
