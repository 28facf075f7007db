import type { Browser, Page } from 'playwright-core';
import type { TestServer } from './helpers/server';
import { browserSuite, signIn, step } from './helpers/browser';

/**
 * What every page owes a person, checked in a real browser: readable on a 375 px phone and a
 * 1440 px screen without sideways scrolling, usable from the keyboard (skip link first, a visible
 * focus), inputs with labels, and no console errors (CSP violations show up there).
 */
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

const suite = browserSuite();
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
