import type { Browser, Page } from 'playwright-core';
import type { TestServer } from './helpers/server';
import { browserSuite, DESKTOP, screenshot, signIn, step } from './helpers/browser';

/**
 * A repository's code in a real browser: created through the form (README, license, .gitignore),
 * its README rendered on the home page, a file browsed to and a line anchor highlighted (then a
 * range by shift-click), the commit list and a commit's diff. Saves the README's screenshots
 * `repo-home.png` and `file-view.png`.
 */
let server: TestServer;
let browser: Browser;
let page: Page;
let alice: { name: string; password: string; id: number };

const LAMP = `/** A small lamp: light it, dim it, put it out. */
export class Lamp {
  private level = 0;

  light(level = 100): void {
    this.level = Math.min(100, Math.max(0, level));
  }

  dim(by: number): void {
    this.light(this.level - by);
  }

  get lit(): boolean {
    return this.level > 0;
  }
}
`;

const suite = browserSuite();
beforeAll(async () => {
  server = suite.server;
  browser = suite.browser;
  alice = await server.user('alice');
  page = await browser.newPage({ viewport: DESKTOP });
}, 90000);

const { url } = suite;

test('create a repository with a README, read it, browse a file to a line, see the commits and a diff', async () => {
  await step(page, 'sign-in', () => signIn(page, server, alice));

  await step(page, 'create-repository', async () => {
    await page.goto(url('/'));
    await page.getByRole('link', { name: 'New repository' }).first().click();
    await page.getByRole('heading', { name: 'New repository' }).waitFor();
    await page.getByLabel('Repository name').fill('lantern');
    await page.getByLabel('Description').fill('A small lamp for dark repositories');
    await page.getByLabel(/Initialize repository/).check();
    await page.getByLabel('License', { exact: true }).selectOption('MIT');
    await page.getByLabel(/\.gitignore templates/).selectOption(['Node']);
    await page.getByRole('button', { name: 'Create repository' }).click();
    await page.waitForURL(/\/alice\/lantern$/);
  });

  // A second commit through the API, so there is code to browse and a diff to read.
  const res = await server.api('POST', '/repos/alice/lantern/contents/src/lamp.ts', {
    basic: [alice.name, alice.password],
    body: { content: Buffer.from(LAMP).toString('base64'), message: 'Add the lamp' },
  });
  expect(res.status).toBe(201);

  await step(page, 'home', async () => {
    await page.goto(url('/alice/lantern'));
    await expect(page.getByRole('heading', { level: 1 }).first().textContent()).resolves.toMatch(/alice\s*\/\s*lantern/);
    // The README, rendered: its title is a heading, its text a paragraph.
    const readme = page.locator('section.readme');
    await expect(readme.locator('h1').textContent()).resolves.toBe('lantern');
    await expect(readme.locator('p').first().textContent()).resolves.toBe('A small lamp for dark repositories');
    await expect(page.getByLabel('Clone with HTTP').inputValue()).resolves.toBe(`${server.url}alice/lantern.git`);
    for (const name of ['src', 'README.md', 'LICENSE', '.gitignore']) await page.getByRole('link', { name, exact: true }).waitFor();
    await screenshot(page, 'repo-home');
  });

  await step(page, 'browse-to-file', async () => {
    await page.getByRole('link', { name: 'src', exact: true }).click();
    await page.waitForURL(/\/alice\/lantern\/src\/branch\/main\/src$/);
    await page.getByRole('link', { name: 'lamp.ts', exact: true }).click();
    await page.waitForURL(/\/src\/branch\/main\/src\/lamp\.ts$/);
    await page.getByRole('heading', { name: 'lamp.ts' }).waitFor();
    // Highlighted by highlight.js: keywords are marked up.
    await expect(page.locator('.blob .hljs-keyword').first().textContent()).resolves.toBe('export');
  });

  await step(page, 'line-anchor', async () => {
    await page.goto(`${page.url()}#L2`);
    await page.reload(); // a fresh load with the anchor, as from a pasted link
    await expect(page.locator('.blob tr.selected').count()).resolves.toBe(1);
    await expect(page.locator('.blob tr.selected a').textContent()).resolves.toBe('2');
    await expect(page.locator('.blob tr.selected td.line').textContent()).resolves.toBe('export class Lamp {');
    // Shift-click another number selects the range.
    await page.locator('#L5').click({ modifiers: ['Shift'] });
    await page.waitForURL(/#L2-L5$/);
    await expect(page.locator('.blob tr.selected').count()).resolves.toBe(4);
    await screenshot(page, 'file-view');
  });

  await step(page, 'commits', async () => {
    await page.getByRole('link', { name: 'Commits', exact: true }).click();
    await page.waitForURL(/\/alice\/lantern\/commits\/branch\/main$/);
    await page.getByRole('heading', { name: '2 commits' }).waitFor();
    await page.getByRole('link', { name: 'Initial commit' }).waitFor();
    await page.getByRole('link', { name: 'Add the lamp' }).click();
    await page.waitForURL(/\/alice\/lantern\/commit\/[0-9a-f]{40}$/);
    await page.getByRole('heading', { name: 'Add the lamp' }).waitFor();
    // The diff, by diff2html: the file, and its added lines.
    await expect(page.locator('.d2h-file-header .d2h-file-name').textContent()).resolves.toBe('src/lamp.ts');
    await expect(page.locator('.d2h-ins .d2h-code-line-ctn').first().textContent()).resolves.toContain('A small lamp');
    await expect(page.locator('.d2h-ins').count()).resolves.toBeGreaterThan(10);
  });
});
