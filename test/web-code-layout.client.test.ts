import type { Browser, Page } from 'playwright-core';
import type { TestServer } from './helpers/server';
import { browserSuite, DESKTOP, screenshot, signIn, step } from './helpers/browser';

/** A repository's code pages and every page's layout, in one browser against one server (distinct users and repositories). */
const suite = browserSuite();

/**
 * A repository's code in a real browser: created through the form (README, license, .gitignore),
 * its README rendered on the home page, a file browsed to and a line anchor highlighted (then a
 * range by shift-click), the commit list and a commit's diff. Saves the README's screenshots
 * `repo-home.png` and `file-view.png`.
 */
describe('repository code', () => {
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
});

/**
 * What every page owes a person, checked in a real browser: readable on a 375 px phone and a
 * 1440 px screen without sideways scrolling, usable from the keyboard (skip link first, a visible
 * focus), inputs with labels, and no console errors (CSP violations show up there).
 */
describe('layout', () => {
  let server: TestServer;
  let browser: Browser;
  let owner: { name: string; password: string; id: number };

  const PAGES = [
    '/',
    '/explore/repos',
    '/layout-owner',
    '/layout-owner/pages',
    '/layout-owner/pages/src/branch/main/README.md',
    '/layout-owner/pages/issues',
    '/layout-owner/pages/issues/1',
    '/layout-owner/pages/commits/branch/main',
    '/user/login',
  ];

  beforeAll(async () => {
    server = suite.server;
    browser = suite.browser;
    owner = await server.user('layout-owner');
    const token = await server.token(owner, ['write:repository', 'write:issue']);
    const must = async (path: string, body: unknown) => {
      const res = await server.api('POST', path, { token, body });
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    };
    await must('/user/repos', {
      name: 'pages',
      auto_init: true,
      default_branch: 'main',
      description: 'A repository with a long description '.repeat(8),
    });
    await must('/repos/layout-owner/pages/issues', {
      title: 'An issue with a rather long title that must wrap on small screens '.repeat(3),
      body: 'text',
    });
  }, 90000);

  async function pageAt(width: number): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width, height: 800 } });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('response', (response) => {
      if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
    });
    return { page, errors };
  }

  for (const width of [375, 1440]) {
    test(`pages fit a ${width} px wide screen and log no errors`, async () => {
      const { page, errors } = await pageAt(width);
      await step(page, `sign-in-${width}`, () => signIn(page, server, owner));
      for (const path of PAGES) {
        await step(page, `fit-${width}${path.replace(/\//g, '_')}`, async () => {
          const res = await page.goto(new URL(path, server.url).toString());
          expect(res?.status()).toBeLessThan(400);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect({ path, overflow }).toEqual({ path, overflow: 0 });
        });
      }
      expect(errors).toEqual([]);
      await page.close();
    });
  }

  test('the keyboard reaches the content first through the skip link, with a visible focus', async () => {
    const { page } = await pageAt(1024);
    await page.goto(new URL('/layout-owner/pages', server.url).toString());
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { text: el.textContent, outline: getComputedStyle(el).outlineStyle };
    });
    expect(focused.text).toBe('Skip to content');
    expect(focused.outline).not.toBe('none');
    await page.keyboard.press('Enter');
    expect(new URL(page.url()).hash).toBe('#main');
    await page.close();
  });

  test('every input of the sign-in, new repository and new issue forms has a label', async () => {
    const { page } = await pageAt(1024);
    await signIn(page, server, owner);
    for (const path of ['/user/login', '/repo/create', '/layout-owner/pages/issues/new']) {
      await page.goto(new URL(path, server.url).toString());
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll('main input:not([type=hidden]), main select, main textarea')]
          .filter((el) => !(el as HTMLInputElement).labels?.length && !el.getAttribute('aria-label'))
          .map((el) => el.outerHTML.slice(0, 120)),
      );
      expect({ path, unlabelled }).toEqual({ path, unlabelled: [] });
    }
    await page.close();
  });
});
