import { ADMIN, startServer, type CallOptions, type TestServer } from './helpers/server';

/**
 * Access to what surrounds repositories (stars, watches, feeds, releases and their attachments,
 * wiki, packages) when the repository is public but its owner is not: a public repository of a
 * private organization and a public repository of a private user are as hidden as the owner.
 */
let server: TestServer;
const passwords = new Map<string, string>();
const uuids: Record<string, string> = {};
let teamId: number;

const CORP = 'aa-corp';
const OWNER = 'aa-owner';
const MEMBER = 'aa-member';
const STRANGER = 'aa-stranger';
const RESTRICTED = 'aa-restricted';
const HIDDEN = 'aa-hidden';
const PUBLIC = 'aa-public';
/** The two repositories under test: public, each of an owner only some may see. */
const REPOS = { org: `${CORP}/open`, user: `${HIDDEN}/open` } as const;

const as = (who: string | null, options: CallOptions = {}): CallOptions =>
  who ? { ...options, basic: [who, passwords.get(who)!] } : options;
const call = (method: string, path: string, who: string | null, body?: unknown) => server.api(method, path, as(who, { body }));
const names = (body: { full_name: string }[]) => body.map((r) => r.full_name);

async function must(what: string, reply: Promise<{ status: number; text: string; body: any }>): Promise<any> {
  const r = await reply;
  if (![200, 201, 204].includes(r.status)) throw new Error(`${what}: ${r.status} ${r.text}`);
  return r.body;
}

async function uploadAttachment(repo: string, releaseId: number, who: string, content: string): Promise<string> {
  const form = new FormData();
  form.append('attachment', new Blob([content], { type: 'text/plain' }), 'notes.txt');
  const auth = `Basic ${Buffer.from(`${who}:${passwords.get(who)}`).toString('base64')}`;
  const res = await fetch(new URL(`api/v1/repos/${repo}/releases/${releaseId}/assets`, server.url), {
    method: 'POST',
    headers: { Authorization: auth },
    body: form,
  });
  const body = (await res.json()) as { uuid: string };
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`);
  return body.uuid;
}

/** Who may see each repository: its members (the organization's team, the user themself). */
const MEMBERS = { org: MEMBER, user: HIDDEN } as const;
const OUTSIDERS = [STRANGER, null] as const;

beforeAll(async () => {
  server = await startServer();
  passwords.set(ADMIN.name, ADMIN.password);
  for (const name of [OWNER, MEMBER, STRANGER, RESTRICTED, PUBLIC]) passwords.set(name, (await server.user(name)).password);
  passwords.set(HIDDEN, (await server.user(HIDDEN, { visibility: 'private' })).password);
  await must(
    'restrict',
    call('PATCH', `/admin/users/${RESTRICTED}`, ADMIN.name, { restricted: true, login_name: RESTRICTED, source_id: 0 }),
  );

  await must('org', call('POST', '/orgs', OWNER, { username: CORP, visibility: 'private' }));
  await must('org repo', call('POST', `/orgs/${CORP}/repos`, OWNER, { name: 'open', private: false, auto_init: true }));
  const team = await must(
    'team',
    call('POST', `/orgs/${CORP}/teams`, OWNER, {
      name: 'readers',
      permission: 'read',
      includes_all_repositories: true,
      units: ['repo.code', 'repo.issues', 'repo.releases', 'repo.wiki'],
    }),
  );
  teamId = team.id;
  await must('team member', call('PUT', `/teams/${teamId}/members/${MEMBER}`, OWNER));
  await must('hidden repo', call('POST', '/user/repos', HIDDEN, { name: 'open', private: false, auto_init: true }));
  await must('public repo', call('POST', '/user/repos', PUBLIC, { name: 'open', private: false, auto_init: true }));

  for (const [kind, repo] of Object.entries(REPOS)) {
    const writer = kind === 'org' ? OWNER : HIDDEN;
    const release = await must(`release ${repo}`, call('POST', `/repos/${repo}/releases`, writer, { tag_name: 'v1', name: 'One' }));
    uuids[kind] = await uploadAttachment(repo, release.id, writer, `notes of ${repo}`);
    await must(
      `wiki ${repo}`,
      call('POST', `/repos/${repo}/wiki/new`, writer, { title: 'Home', content_base64: Buffer.from('# Home').toString('base64') }),
    );
  }

  // The member stars and watches the organization's repository and a public one; the hidden user their own.
  for (const repo of [REPOS.org, `${PUBLIC}/open`]) {
    await must(`star ${repo}`, call('PUT', `/user/starred/${repo}`, MEMBER));
    await must(`watch ${repo}`, call('PUT', `/repos/${repo}/subscription`, MEMBER));
  }
  await must('star own', call('PUT', `/user/starred/${REPOS.user}`, HIDDEN));

  const put = await fetch(new URL(`api/packages/${CORP}/generic/tool/1.0.0/tool.txt`, server.url), {
    method: 'PUT',
    headers: { Authorization: `Basic ${Buffer.from(`${OWNER}:${passwords.get(OWNER)}`).toString('base64')}` },
    body: 'tool',
  });
  expect(put.status).toBe(201);
});
afterAll(async () => {
  await server?.close();
});

describe.each(Object.keys(REPOS) as (keyof typeof REPOS)[])('a public repository of a private %s', (kind) => {
  const repo = () => REPOS[kind];
  const member = MEMBERS[kind];

  test('stars and watches: the repository and its stargazers are hidden from outsiders, starring it is 404', async () => {
    for (const who of OUTSIDERS) {
      expect((await call('GET', `/repos/${repo()}/stargazers`, who)).status).toBe(404);
      expect((await call('GET', `/repos/${repo()}/subscribers`, who)).status).toBe(404);
    }
    expect((await call('PUT', `/user/starred/${repo()}`, STRANGER)).status).toBe(404);
    expect((await call('GET', `/user/starred/${repo()}`, STRANGER)).status).toBe(404);
    expect((await call('PUT', `/repos/${repo()}/subscription`, STRANGER)).status).toBe(404);
    expect((await call('GET', `/repos/${repo()}/stargazers`, member)).body.length).toBeGreaterThan(0);
    expect((await call('GET', `/user/starred/${repo()}`, member)).status).toBe(204);
  });

  test('feeds: the repository feed is 404 for outsiders and lists its activity for a member', async () => {
    for (const who of OUTSIDERS) expect((await call('GET', `/repos/${repo()}/activities/feeds`, who)).status).toBe(404);
    const feed = await call('GET', `/repos/${repo()}/activities/feeds`, member);
    expect(feed.status).toBe(200);
    expect(feed.body.map((a: { op_type: string }) => a.op_type)).toEqual(expect.arrayContaining(['create_repo', 'publish_release']));
  });

  test('releases, their attachments and the wiki are 404 for outsiders and readable by a member', async () => {
    for (const who of OUTSIDERS) {
      expect((await call('GET', `/repos/${repo()}/releases`, who)).status).toBe(404);
      expect((await call('GET', `/repos/${repo()}/releases/latest`, who)).status).toBe(404);
      const download = await call('GET', `//attachments/${uuids[kind]}`, who);
      expect(download.status).toBe(404);
      // The uuid alone does not tell which repository it belongs to.
      expect(download.text).not.toContain(repo());
      expect((await call('GET', `/repos/${repo()}/wiki/pages`, who)).status).toBe(404);
      expect((await call('GET', `/repos/${repo()}/wiki/page/Home`, who)).status).toBe(404);
    }
    const releases = await call('GET', `/repos/${repo()}/releases`, member);
    expect(releases.status).toBe(200);
    expect(releases.body.map((r: { tag_name: string }) => r.tag_name)).toEqual(['v1']);
    const download = await call('GET', `//attachments/${uuids[kind]}`, member);
    expect(download.status).toBe(200);
    expect(download.text).toBe(`notes of ${repo()}`);
    const pages = await call('GET', `/repos/${repo()}/wiki/pages`, member);
    expect(pages.status).toBe(200);
    expect(pages.body.map((p: { title: string }) => p.title)).toEqual(['Home']);
    expect((await call('GET', `/repos/${repo()}/wiki/page/Home`, member)).status).toBe(200);
  });
});

describe('lists of a visible user hide repositories of owners the caller may not see', () => {
  test("/users/{u}/starred and /users/{u}/subscriptions leave out the private organization's repository", async () => {
    for (const list of ['starred', 'subscriptions']) {
      expect(names((await call('GET', `/users/${MEMBER}/${list}`, MEMBER)).body).sort()).toEqual([REPOS.org, `${PUBLIC}/open`].sort());
      for (const who of OUTSIDERS) {
        const res = await call('GET', `/users/${MEMBER}/${list}`, who);
        expect(res.status).toBe(200);
        expect(names(res.body)).toEqual([`${PUBLIC}/open`]);
        expect(res.headers.get('x-total-count')).toBe('1');
      }
    }
  });

  test("a restricted user sees none of the others' public repositories", async () => {
    const res = await call('GET', `/users/${MEMBER}/starred`, RESTRICTED);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect((await call('GET', `/users/${MEMBER}/subscriptions`, RESTRICTED)).body).toEqual([]);
  });

  test("a private user's stars are 404 for others and listed for themselves", async () => {
    for (const who of [...OUTSIDERS, RESTRICTED]) {
      expect((await call('GET', `/users/${HIDDEN}/starred`, who)).status).toBe(404);
      expect((await call('GET', `/users/${HIDDEN}/subscriptions`, who)).status).toBe(404);
      expect((await call('GET', `/users/${HIDDEN}/activities/feeds`, who)).status).toBe(404);
    }
    expect(names((await call('GET', `/users/${HIDDEN}/starred`, HIDDEN)).body)).toEqual([REPOS.user]);
  });

  test("a visible user's feed leaves out activity of repositories the caller may not read", async () => {
    const own = await call('GET', `/users/${MEMBER}/activities/feeds?limit=50`, MEMBER);
    expect(own.status).toBe(200);
    expect(own.body.map((a: { repo: { full_name: string } }) => a.repo.full_name)).toContain(REPOS.org);
    for (const who of [...OUTSIDERS, RESTRICTED]) {
      const res = await call('GET', `/users/${MEMBER}/activities/feeds?limit=50`, who);
      expect(res.status).toBe(200);
      expect(res.body.map((a: { repo: { full_name: string } }) => a.repo.full_name)).not.toContain(REPOS.org);
    }
  });
});

describe('a private organization', () => {
  test('its feed, its team feed and its packages are 404 for outsiders and open to a member', async () => {
    for (const who of OUTSIDERS) {
      expect((await call('GET', `/orgs/${CORP}/activities/feeds`, who)).status).toBe(404);
      expect((await call('GET', `/packages/${CORP}`, who)).status).toBe(404);
    }
    expect((await call('GET', `/teams/${teamId}/activities/feeds`, STRANGER)).status).toBe(404);
    expect((await call('GET', `/packages/${CORP}`, RESTRICTED)).status).toBe(404);
    expect((await call('DELETE', `/packages/${CORP}/generic/tool/1.0.0`, STRANGER)).status).toBe(404);

    const feed = await call('GET', `/orgs/${CORP}/activities/feeds`, MEMBER);
    expect(feed.status).toBe(200);
    expect(new Set(feed.body.map((a: { repo: { full_name: string } }) => a.repo.full_name))).toEqual(new Set([REPOS.org]));
    expect((await call('GET', `/teams/${teamId}/activities/feeds`, MEMBER)).status).toBe(200);
    const packages = await call('GET', `/packages/${CORP}`, MEMBER);
    expect(packages.status).toBe(200);
    expect(packages.body.map((p: { name: string }) => p.name)).toEqual(['tool']);
    // A reader of the organization's packages may not delete them.
    expect((await call('DELETE', `/packages/${CORP}/generic/tool/1.0.0`, MEMBER)).status).toBe(403);
  });
});
