import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';
import { browserSuite, DESKTOP, screenshot, signIn, step } from './helpers/browser';

/**
 * A pull request in a real browser: a branch pushed with git, compared, opened from the compare
 * page, its diff read, merged with the merge box.
 */
let server: TestServer;
let browser: Browser;
let page: Page;
let sandbox: ReturnType<typeof gitSandbox>;
let alice: { name: string; password: string; id: number };

async function git(args: string[], cwd: string): Promise<string> {
  const run = await sandbox.git(args, cwd);
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

const suite = browserSuite();
beforeAll(async () => {
  server = suite.server;
  browser = suite.browser;
  alice = await server.user('alice');
  const token = await server.token(alice, ['write:repository', 'write:issue']);
  const created = await server.api('POST', '/user/repos', { token, body: { name: 'proj', auto_init: true, default_branch: 'main' } });
  expect(created.status).toBe(201);

  // A branch that changes the README, pushed with the git client.
  sandbox = gitSandbox();
  const dir = path.join(sandbox.dir, 'proj');
  await git(['clone', '-q', cloneUrl(server.url, 'alice/proj.git', 'alice', token), dir], sandbox.dir);
  await git(['checkout', '-q', '-b', 'feature'], dir);
  fs.appendFileSync(path.join(dir, 'README.md'), '\nA line added on the feature branch.\n');
  await git(['commit', '-q', '-am', 'Describe the feature'], dir);
  await git(['push', '-q', 'origin', 'feature'], dir);
  const head = await git(['rev-parse', 'HEAD'], dir);
  const status = await server.api('POST', `/repos/alice/proj/statuses/${head}`, {
    token,
    body: { state: 'success', context: 'ci/build', description: 'The build passed', target_url: 'https://ci.example.com/1' },
  });
  expect(status.status).toBe(201);

  page = await browser.newPage({ viewport: DESKTOP });
}, 90000);

afterAll(async () => {
  sandbox?.cleanup();
});

test('open a pull request from the compare page, read its diff, merge it', async () => {
  await step(page, 'sign-in', () => signIn(page, server, alice));

  await step(page, 'compare', async () => {
    await page.goto(new URL('/alice/proj/pulls', server.url).toString());
    await page.getByRole('link', { name: 'New pull request' }).click();
    await page.getByRole('heading', { name: 'Compare changes' }).waitFor();
    await page.getByLabel('Compare branch').selectOption('feature');
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL(/\/alice\/proj\/compare\/main\.\.\.feature$/);
    await page.getByRole('heading', { name: 'Comparing main...feature' }).waitFor();
    expect(await page.getByText('Describe the feature').first().isVisible()).toBe(true);
    expect(await page.locator('.d2h-file-name', { hasText: 'README.md' }).first().isVisible()).toBe(true);
  });

  await step(page, 'create', async () => {
    // The title starts as the only commit's subject.
    expect(await page.getByLabel('Title').inputValue()).toBe('Describe the feature');
    await page.getByLabel('Title').fill('Document the feature');
    await page.getByLabel('Description').fill('This explains **the feature**.');
    await page.getByRole('button', { name: 'Create pull request' }).click();
    await page.waitForURL(/\/alice\/proj\/pulls\/1$/);
    await page.getByRole('heading', { name: 'Document the feature #1' }).waitFor();
    expect(await page.locator('.pull-head').innerText()).toMatch(/Open\s+alice wants to merge 1 commit into main from feature/);
  });

  await step(page, 'files', async () => {
    await page.getByRole('link', { name: /Files changed/ }).click();
    await page.waitForURL(/\/pulls\/1\/files$/);
    expect(await page.getByRole('link', { name: /Files changed/ }).getAttribute('aria-current')).toBe('page');
    const added = page.locator('.d2h-ins', { hasText: 'A line added on the feature branch.' }).first();
    expect(await added.isVisible()).toBe(true);
    await screenshot(page, 'pull-files');
  });

  await step(page, 'merge', async () => {
    await page.getByRole('link', { name: /Conversation/ }).click();
    await page.waitForURL(/\/pulls\/1$/);
    const box = page.locator('.merge-box');
    expect(await box.innerText()).toContain('This branch has no conflicts with the base branch.');
    // The head commit's checks, as CI reported them.
    expect(await box.innerText()).toMatch(/All checks were successful\s+Successful ci\/build — The build passed/);
    expect(await page.getByLabel('Create merge commit', { exact: true }).isChecked()).toBe(true);
    await box.scrollIntoViewIfNeeded();
    await screenshot(page, 'pull-merge');
    await page.getByRole('button', { name: 'Merge pull request' }).click();
    await page.waitForURL(/\/pulls\/1$/);
    await page.getByRole('heading', { name: 'Merged', exact: true }).waitFor();
    expect(await page.locator('.pull-head .state').innerText()).toBe('Merged');
    expect(await page.getByRole('button', { name: 'Merge pull request' }).count()).toBe(0);
    expect(await page.locator('.merge-box').innerText()).toMatch(/alice merged commit [0-9a-f]{10} into main/);
  });

  const pr = await server.api('GET', '/repos/alice/proj/pulls/1');
  expect(pr.body).toMatchObject({ merged: true, state: 'closed' });
  await step(page, 'list', async () => {
    await page.goto(new URL('/alice/proj/pulls?state=closed', server.url).toString());
    expect(await page.locator('.pull-rows').innerText()).toContain('Document the feature');
  });
}, 120000);
