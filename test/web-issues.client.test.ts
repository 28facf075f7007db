import type { Browser, Page } from 'playwright-core';
import type { TestServer } from './helpers/server';
import { browserSuite, DESKTOP, screenshot, signIn, step } from './helpers/browser';

/**
 * An issue's life in a real browser: opened with markdown (previewed, then rendered), commented on,
 * labelled, closed, found under "Closed", reopened, reacted to.
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
  const bob = await server.user('bob');
  const token = await server.token(alice, ['write:repository', 'write:issue']);
  const bobToken = await server.token(bob, ['write:issue']);
  const must = async (path: string, body: unknown, as = token) => {
    const res = await server.api('POST', path, { token: as, body });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  await must('/user/repos', { name: 'garden', auto_init: true, default_branch: 'main' });
  const bug = await must('/repos/alice/garden/labels', { name: 'bug', color: '#d73a4a', description: 'Something is not working' });
  const docs = await must('/repos/alice/garden/labels', { name: 'documentation', color: '#0075ca' });
  const milestone = await must('/repos/alice/garden/milestones', { title: 'Spring' });
  // A few issues so the list looks like one.
  await must('/repos/alice/garden/issues', { title: 'Tomatoes wilt in the afternoon', labels: [bug.id], milestone: milestone.id });
  await must('/repos/alice/garden/issues', { title: 'Write a watering guide', labels: [docs.id] }, bobToken);
  const old = await must('/repos/alice/garden/issues', { title: 'Fence gate squeaks' }, bobToken);
  await must(`/repos/alice/garden/issues/${old.number}/comments`, { body: 'Oiled it.' });
  expect((await server.api('PATCH', `/repos/alice/garden/issues/${old.number}`, { token, body: { state: 'closed' } })).status).toBe(201);

  page = await browser.newPage({ viewport: DESKTOP });
}, 90000);

const { url } = suite;

test('open an issue with markdown, comment, label it, close it, find it under Closed, reopen it', async () => {
  await step(page, 'sign-in', () => signIn(page, server, alice));

  await step(page, 'new-issue', async () => {
    await page.goto(url('/alice/garden/issues'));
    await page.getByRole('link', { name: 'New issue' }).click();
    await page.getByRole('heading', { name: 'New issue' }).waitFor();
    await page.getByLabel('Title').fill('Slugs eat the lettuce');
    await page.getByLabel('Description').fill('Seen **every night** near:\n\n- the lettuce bed\n- the `compost` heap');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect(page.locator('#content-preview strong').textContent()).resolves.toBe('every night');
    await page.getByRole('button', { name: 'Create issue' }).click();
    await page.waitForURL(/\/alice\/garden\/issues\/4$/);
  });

  await step(page, 'rendered', async () => {
    await page.getByRole('heading', { name: /Slugs eat the lettuce/ }).waitFor();
    expect(await page.locator('.issue-head .state').textContent()).toBe('Open');
    const post = page.locator('#issue-4 .markdown');
    expect(await post.locator('strong').textContent()).toBe('every night');
    expect(await post.locator('li').allTextContents()).toEqual(['the lettuce bed', 'the compost heap']);
    expect(await post.locator('code').textContent()).toBe('compost');
  });

  await step(page, 'comment', async () => {
    const close = page.locator('button[name=status]');
    expect(await close.textContent()).toBe('Close');
    await page.getByLabel('Comment', { exact: true }).fill('Beer traps tonight, _then_ we see.');
    expect(await close.textContent()).toBe('Close with comment');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await page.waitForURL(/#issuecomment-\d+$/);
    const comment = page.locator('li.post').nth(1);
    expect(await comment.locator('.markdown em').textContent()).toBe('then');
    expect(await comment.locator('header').textContent()).toContain('alice');
  });

  await step(page, 'react', async () => {
    await page.locator('#issue-4').getByText('Add reaction').click();
    await page.locator('#issue-4').getByRole('button', { name: 'React with heart' }).click();
    await page.locator('#issue-4 button.reaction[aria-pressed=true]').waitFor();
    expect(await page.locator('#issue-4 button.reaction[aria-pressed=true]').textContent()).toContain('1');
  });

  await step(page, 'label', async () => {
    await page.getByText('Edit labels').click();
    await page.getByRole('checkbox', { name: /bug/ }).check();
    await page.getByRole('button', { name: 'Apply labels' }).click();
    await page.getByRole('complementary', { name: 'Issue details' }).getByRole('link', { name: 'bug' }).waitFor();
    expect(await page.locator('li.event-label').textContent()).toMatch(/alice\s+added\s+bug\s+label/);
  });

  await step(page, 'close', async () => {
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await page.locator('.issue-head .state.closed').waitFor();
    expect(await page.locator('.issue-head .state').textContent()).toBe('Closed');
    expect(await page.locator('li.event-close').textContent()).toContain('closed this issue');
  });

  await step(page, 'closed-list', async () => {
    await page.goto(url('/alice/garden/issues'));
    const open = page.locator('ul.issue-list');
    expect(await open.textContent()).not.toContain('Slugs eat the lettuce');
    expect(await open.textContent()).toContain('Tomatoes wilt in the afternoon');
    await page.getByRole('link', { name: '2 Closed' }).click();
    await page.waitForURL(/state=closed/);
    expect(await page.locator('ul.issue-list a.title').allTextContents()).toEqual(['Slugs eat the lettuce', 'Fence gate squeaks']);
    await page.getByRole('link', { name: 'All' }).click();
    await page.waitForURL(/state=all/);
    await screenshot(page, 'issue-list');
    await page.getByRole('link', { name: 'Slugs eat the lettuce' }).click();
  });

  await step(page, 'reopen', async () => {
    await page.waitForURL(/\/alice\/garden\/issues\/4$/);
    await page.getByRole('button', { name: 'Reopen', exact: true }).click();
    await page.locator('.issue-head .state.open').waitFor();
    expect(await page.locator('li.event-reopen').textContent()).toContain('reopened this issue');
    await screenshot(page, 'issue-page');
  });

  await step(page, 'narrow', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
