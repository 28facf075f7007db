import type { Browser, Page } from 'playwright-core';
import { ADMIN, type TestServer } from './helpers/server';
import { browserSuite, DESKTOP, screenshot, signIn, step } from './helpers/browser';

/**
 * Organizations and site administration in a real browser: an owner creates an organization and a
 * team that may write issues, adds a member and a private repository to it, and the member can then
 * open that repository's new issue page (a 404 before); a site admin renames one user and deletes
 * another. Saves the screenshots `org-team-edit.png`, `org-team.png`, `admin-dashboard.png`,
 * `admin-users.png` and `admin-user-edit.png`.
 */
let server: TestServer;
let browser: Browser;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };

const suite = browserSuite();
beforeAll(async () => {
  server = suite.server;
  browser = suite.browser;
  alice = await server.user('alice');
  bob = await server.user('bob');
  await server.user('carol');
  await server.user('dave');
}, 90000);

const { url } = suite;

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP });
  return context.newPage();
}

test('an owner creates an organization and a team with issue write access; its member can open a new issue', async () => {
  const owner = await newPage();
  const member = await newPage();
  await step(member, 'member-sign-in', () => signIn(member, server, bob));
  await step(owner, 'owner-sign-in', () => signIn(owner, server, alice));

  await step(owner, 'create-organization', async () => {
    await owner.goto(url('/org/create'));
    await owner.getByLabel('Organization name').fill('lanterns');
    await owner.getByLabel('Full name').fill('Lantern Makers');
    await owner.getByLabel(/^Private/).check();
    await owner.getByRole('button', { name: 'Create organization' }).click();
    await owner.waitForURL(/\/lanterns$/);
    await owner.getByRole('heading', { name: /Lantern Makers/ }).waitFor();
  });

  // A private repository of the organization, with an issue label for the member to see.
  const res = await server.api('POST', '/orgs/lanterns/repos', {
    basic: [alice.name, alice.password],
    body: { name: 'wick', private: true },
  });
  expect(res.status).toBe(201);
  await step(member, 'no-access-yet', async () => {
    const before = await member.goto(url('/lanterns/wick/issues/new'));
    expect(before?.status()).toBe(404);
  });

  await step(owner, 'create-team', async () => {
    await owner.getByRole('link', { name: 'Teams', exact: true }).click();
    await owner.waitForURL(/\/org\/lanterns\/teams$/);
    await owner.getByRole('link', { name: 'New team' }).click();
    await owner.getByLabel('Team name').fill('triage');
    await owner.getByLabel('Description').fill('Sorts the issues');
    await owner.getByLabel('Issues', { exact: true }).selectOption('write');
    await owner.getByLabel('Code', { exact: true }).selectOption('read');
    await screenshot(owner, 'org-team-edit');
    await owner.getByRole('button', { name: 'Create team' }).click();
    await owner.waitForURL(/\/org\/lanterns\/teams\/triage$/);
    await owner.getByRole('heading', { name: 'triage' }).waitFor();
    await expect(owner.locator('main').textContent()).resolves.toContain('Issues: write');
  });

  await step(owner, 'add-member-and-repository', async () => {
    await owner.getByLabel('User name to add').fill('bob');
    await owner.getByRole('button', { name: 'Add member' }).click();
    await owner.getByText('The member was added.').waitFor();
    await owner.getByRole('link', { name: 'bob', exact: true }).waitFor();
    await owner.getByRole('link', { name: 'Repositories', exact: true }).last().click();
    await owner.waitForURL(/\/teams\/triage\/repositories$/);
    await owner.getByLabel('Repository name to add').fill('wick');
    await owner.getByRole('button', { name: 'Add repository' }).click();
    await owner.getByText('The repository was added.').waitFor();
    await owner.getByRole('link', { name: 'lanterns/wick' }).waitFor();
    await owner.getByRole('link', { name: 'Members', exact: true }).click();
    await screenshot(owner, 'org-team');
  });

  await step(member, 'member-opens-new-issue', async () => {
    const after = await member.goto(url('/lanterns/wick/issues/new'));
    expect(after?.status()).toBe(200);
    await member.getByLabel('Title').fill('The wick is too short');
    await member.getByRole('button', { name: /Create issue|Submit new issue/ }).click();
    await member.waitForURL(/\/lanterns\/wick\/issues\/1$/);
    await member.getByRole('heading', { name: /The wick is too short/ }).waitFor();
  });
});

test('a site admin renames one user and deletes another', async () => {
  const page = await newPage();
  await step(page, 'admin-sign-in', () => signIn(page, server, ADMIN));

  await step(page, 'dashboard', async () => {
    await page.getByRole('link', { name: 'Site administration' }).click();
    await page.waitForURL(/\/admin$/);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await expect(page.locator('dl.stats').textContent()).resolves.toMatch(/Organizations\s*1/);
    await screenshot(page, 'admin-dashboard');
  });

  await step(page, 'rename', async () => {
    await page.getByRole('navigation', { name: 'Site administration' }).getByRole('link', { name: 'Users' }).click();
    await page.getByLabel('Name or full name').fill('carol');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/admin\/users\?q=carol/);
    await screenshot(page, 'admin-users');
    await page.getByRole('link', { name: 'Edit carol' }).click();
    await page.getByRole('heading', { name: 'Edit user account carol' }).waitFor();
    await page.getByLabel('New user name').fill('caroline');
    await page.getByRole('button', { name: 'Rename user' }).click();
    await page.getByText('The user was renamed.').waitFor();
    await page.getByRole('heading', { name: 'Edit user account caroline' }).waitFor();
    await screenshot(page, 'admin-user-edit');
  });
  const renamed = await server.api('GET', '/users/caroline');
  expect(renamed.status).toBe(200);
  expect((await server.api('GET', '/users/carol')).status).toBe(404);

  await step(page, 'delete', async () => {
    await page.getByRole('navigation', { name: 'Site administration' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('link', { name: 'Edit dave' }).click();
    await page.getByRole('heading', { name: 'Edit user account dave' }).waitFor();
    // A wrong confirmation deletes nothing.
    await page.getByLabel(/Type dave to confirm/).fill('david');
    await page.getByRole('button', { name: 'Delete user account' }).click();
    await page.getByText('type its user name, dave, exactly').waitFor();
    await page.getByLabel(/Type dave to confirm/).fill('dave');
    await page.getByRole('button', { name: 'Delete user account' }).click();
    await page.waitForURL(/\/admin\/users\?done=deleted$/);
    await page.getByText('The user account was deleted.').waitFor();
    await expect(page.getByRole('link', { name: 'Edit dave' }).count()).resolves.toBe(0);
  });
  expect((await server.api('GET', '/users/dave')).status).toBe(404);
});
