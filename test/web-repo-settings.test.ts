import type { TestServer } from './helpers/server';
import { WebClient, csrfToken, textOf, webServer, mustCall } from './helpers/web';

/**
 * The repository settings pages over plain HTTP: only the repository's administrators reach them
 * (a 404 page for those who may not see the repository, 403 for those who may see it), on every
 * page and every form; CSRF; the typed confirmation before a deletion; the API's refusal to turn
 * every unit off, shown with the form; basic settings, collaborators and teams, branch protection
 * rules, webhooks and push mirrors through their forms; stored XSS shown inert.
 */

let server: TestServer;
let alice: { name: string; password: string; id: number };
let bob: { name: string; password: string; id: number };
let carol: { name: string; password: string; id: number };
let owner: WebClient;
let reader: WebClient;
let stranger: WebClient;
let anonymous: WebClient;

const api = (method: string, path: string, body?: unknown, who = alice): Promise<any> =>
  mustCall(
    () => server,
    () => who,
  )(method, path, body);

const repoJson = (name: string) => server.api('GET', `/repos/alice/${name}`, { basic: [alice.name, alice.password] });

const suite = webServer({ migrations: { ALLOW_LOCALNETWORKS: true } });
beforeAll(async () => {
  server = suite.server;
  alice = await server.user('alice');
  bob = await server.user('bob');
  carol = await server.user('carol');
  await api('POST', '/user/repos', { name: 'proj', auto_init: true, default_branch: 'main', description: 'open' });
  await api('POST', '/user/repos', { name: 'hidden', private: true, auto_init: true, default_branch: 'main' });
  for (const repo of ['proj', 'hidden']) await api('PUT', `/repos/alice/${repo}/collaborators/bob`, { permission: 'read' });
  owner = new WebClient(server);
  await owner.signIn(alice);
  reader = new WebClient(server);
  await reader.signIn(bob);
  stranger = new WebClient(server);
  await stranger.signIn(carol);
  anonymous = new WebClient(server);
}, 60000);

const PAGES = [
  '/settings',
  '/settings/collaboration',
  '/settings/branches',
  '/settings/branches/edit',
  '/settings/branches/edit?rule_name=main',
  '/settings/hooks',
  '/settings/hooks/gitea/new',
  '/settings/hooks/1',
];

const FORMS: Array<[string, Record<string, string>]> = [
  ['/settings', { action: 'update', repo_name: 'taken-over', description: 'x' }],
  ['/settings', { action: 'advanced', has_code: 'on' }],
  ['/settings', { action: 'archive' }],
  ['/settings', { action: 'transfer', new_owner_name: 'carol', repo_name: 'alice/REPO' }],
  ['/settings', { action: 'delete', repo_name: 'alice/REPO' }],
  ['/settings', { action: 'push-mirror-add', push_mirror_address: 'http://127.0.0.1:9/x.git' }],
  ['/settings', { action: 'push-mirror-sync' }],
  ['/settings/collaboration', { collaborator: 'carol', mode: 'admin' }],
  ['/settings/collaboration/access_mode', { name: 'bob', mode: 'admin' }],
  ['/settings/collaboration/delete', { name: 'bob' }],
  ['/settings/collaboration/team', { team_id: '1' }],
  ['/settings/collaboration/team/delete', { team_id: '1' }],
  ['/settings/branches', { branch: 'main' }],
  ['/settings/branches/edit', { rule_name: 'main', enable_push: 'all' }],
  ['/settings/branches/main/delete', {}],
  ['/settings/hooks/gitea/new', { payload_url: 'http://127.0.0.1:9/hook', events: 'push_only', active: 'on' }],
  ['/settings/hooks/gitea/1', { payload_url: 'http://127.0.0.1:9/hook', events: 'push_only' }],
  ['/settings/hooks/1/test', {}],
  ['/settings/hooks/1/replay/x', {}],
  ['/settings/hooks/delete', { id: '1' }],
];

describe('access', () => {
  test('every settings page is the 404 page of a private repository for anonymous visitors and strangers, 403 for a reader', async () => {
    for (const page of PAGES) {
      const url = `/alice/hidden${page}`;
      expect([url, (await anonymous.get(url)).status]).toEqual([url, 404]);
      expect([url, (await stranger.get(url)).status]).toEqual([url, 404]);
      const refused = await reader.get(url);
      expect([url, refused.status]).toEqual([url, 403]);
      expect(textOf(refused.html)).toContain('you do not have admin access to this repository');
    }
  });

  test('every settings page of a public repository is a 403 page for anonymous visitors, strangers and readers', async () => {
    for (const page of PAGES) {
      const url = `/alice/proj${page}`;
      for (const client of [anonymous, stranger, reader]) expect([url, (await client.get(url)).status]).toEqual([url, 403]);
    }
  });

  test('every settings form is refused to those who are not administrators, and changes nothing', async () => {
    const before = (await repoJson('proj')).body;
    const hiddenBefore = (await repoJson('hidden')).body;
    // Each one's own valid token: the refusal is about the settings, not CSRF.
    const tokens = new Map<WebClient, string>([
      [anonymous, csrfToken((await anonymous.get('/user/login')).html)],
      [stranger, csrfToken((await stranger.get('/')).html)],
      [reader, csrfToken((await reader.get('/')).html)],
    ]);
    for (const [path, fields] of FORMS) {
      for (const [repo, client, status] of [
        ['proj', anonymous, 403],
        ['proj', stranger, 403],
        ['proj', reader, 403],
        ['hidden', anonymous, 404],
        ['hidden', stranger, 404],
        ['hidden', reader, 403],
      ] as const) {
        const url = `/alice/${repo}${path}`;
        const body = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.replace('REPO', repo)]));
        const res = await client.post(url, body, { csrf: tokens.get(client) });
        expect([url, client === anonymous ? 'anonymous' : 'signed in', res.status]).toEqual([
          url,
          client === anonymous ? 'anonymous' : 'signed in',
          status,
        ]);
      }
    }
    expect((await repoJson('proj')).body).toMatchObject({ name: 'proj', archived: false, description: before.description });
    expect((await repoJson('hidden')).body).toMatchObject({ name: 'hidden', archived: false, private: true, id: hiddenBefore.id });
    const collaborators = await api('GET', '/repos/alice/proj/collaborators');
    expect(collaborators.map((u: { login: string }) => u.login)).toEqual(['bob']);
    expect(await api('GET', '/repos/alice/proj/branch_protections')).toEqual([]);
    expect(await api('GET', '/repos/alice/proj/hooks')).toEqual([]);
  });

  test('administrators see the Settings tab on the repository header; readers do not', async () => {
    const home = await owner.get('/alice/proj');
    expect(home.html).toContain('href="/alice/proj/settings"');
    expect((await reader.get('/alice/proj')).html).not.toContain('href="/alice/proj/settings"');
    const settings = await owner.get('/alice/proj/settings');
    expect(settings.status).toBe(200);
    expect(settings.html).toMatch(/<a href="\/alice\/proj\/settings" aria-current="page">Settings<\/a>/);
  });

  test('forms without the page’s CSRF token are refused and change nothing', async () => {
    for (const csrf of [null, 'forged-token-of-the-same-length-as-nothing']) {
      const res = await owner.post('/alice/proj/settings', { action: 'update', repo_name: 'proj', description: 'forged' }, { csrf });
      expect(res.status).toBe(403);
      expect(textOf(res.html)).toContain('the form was not sent from this site');
    }
    const stolen = csrfToken((await reader.get('/alice/proj')).html);
    expect((await owner.post('/alice/proj/settings', { action: 'delete', repo_name: 'alice/proj' }, { csrf: stolen })).status).toBe(403);
    expect((await repoJson('proj')).body.description).toBe('open');
  });
});

describe('repository options', () => {
  test('basic settings: rename, description, website, visibility, template; the page follows the new name', async () => {
    await api('POST', '/user/repos', { name: 'basics', auto_init: true });
    const res = await owner.post(
      '/alice/basics/settings',
      { action: 'update', repo_name: 'renamed', description: '<script>alert(1)</script>', website: 'https://example.com', private: 'on' },
      { csrfFrom: '/alice/basics/settings' },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/alice/renamed/settings?done=updated');
    const page = await owner.get('/alice/renamed/settings?done=updated');
    expect(textOf(page.html)).toContain('The repository settings have been updated.');
    expect(page.html).toContain('&lt;script>alert(1)&lt;/script>');
    expect(page.html).not.toContain('<script>alert(1)</script>');
    expect((await repoJson('renamed')).body).toMatchObject({ private: true, template: false, website: 'https://example.com' });
    // A refusal (an invalid name) is shown with the form, the values kept.
    const bad = await owner.post('/alice/renamed/settings', { action: 'update', repo_name: 'bad name!', description: 'kept text' });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('kept text');
    expect(bad.html).toMatch(/class="notice error"/);
  });

  test('units: turning every one off is refused with the API’s reason, shown on the form; one off goes through', async () => {
    const res = await owner.post('/alice/proj/settings', { action: 'advanced', default_merge_style: 'merge' });
    expect(res.status).toBe(422);
    const text = textOf(res.html);
    expect(text).toContain('At least one feature must stay on');
    expect(text).toMatch(/at least one unit \(code, issues, pulls, releases, wiki, projects, packages, actions\) must stay enabled/);
    // The form comes back as sent: every unit unchecked.
    expect(res.html).not.toMatch(/id="has_code" name="has_code" value="on" checked/);
    expect((await repoJson('proj')).body).toMatchObject({ has_code: true, has_issues: true, has_wiki: true });

    const units = { has_code: 'on', has_issues: 'on', has_pull_requests: 'on', has_releases: 'on' };
    const ok = await owner.post('/alice/proj/settings', {
      action: 'advanced',
      ...units,
      allow_squash_merge: 'on',
      allow_merge_commits: 'on',
      default_merge_style: 'squash',
    });
    expect([ok.status, ok.headers.get('location')]).toEqual([303, '/alice/proj/settings?done=units']);
    expect((await repoJson('proj')).body).toMatchObject({
      has_wiki: false,
      has_issues: true,
      allow_rebase: false,
      allow_squash_merge: true,
      default_merge_style: 'squash',
    });
    await owner.post('/alice/proj/settings', {
      action: 'advanced',
      ...units,
      has_wiki: 'on',
      allow_merge_commits: 'on',
      allow_rebase: 'on',
    });
  });

  test('delete needs the repository’s full name typed; archive and unarchive', async () => {
    await api('POST', '/user/repos', { name: 'victim', auto_init: true });
    for (const typed of ['', 'victim', 'alice/victi']) {
      const res = await owner.post('/alice/victim/settings', { action: 'delete', repo_name: typed });
      expect(res.status).toBe(422);
      expect(textOf(res.html)).toContain('Type the repository’s full name, alice/victim, to confirm.');
    }
    expect((await repoJson('victim')).status).toBe(200);

    const archived = await owner.post('/alice/victim/settings', { action: 'archive' });
    expect(archived.headers.get('location')).toBe('/alice/victim/settings?done=archived');
    expect((await repoJson('victim')).body.archived).toBe(true);
    expect(textOf((await owner.get('/alice/victim/settings')).html)).toContain('Unarchive this repository');
    await owner.post('/alice/victim/settings', { action: 'unarchive' });
    expect((await repoJson('victim')).body.archived).toBe(false);

    const gone = await owner.post('/alice/victim/settings', { action: 'delete', repo_name: 'ALICE/victim' });
    expect([gone.status, gone.headers.get('location')]).toEqual([303, '/alice']);
    expect((await repoJson('victim')).status).toBe(404);
  });

  test('transfer needs the typed name; to another user it waits for them, shown on the page', async () => {
    await api('POST', '/user/repos', { name: 'gift', auto_init: true });
    expect((await owner.post('/alice/gift/settings', { action: 'transfer', new_owner_name: 'carol', repo_name: 'gift' })).status).toBe(422);
    const missing = await owner.post('/alice/gift/settings', {
      action: 'transfer',
      new_owner_name: 'nobody-here',
      repo_name: 'alice/gift',
    });
    expect(missing.status).toBe(404);
    expect(textOf(missing.html)).toContain('new owner does not exist');
    const res = await owner.post('/alice/gift/settings', { action: 'transfer', new_owner_name: 'carol', repo_name: 'alice/gift' });
    expect(res.headers.get('location')).toBe('/alice/gift/settings?done=transfer-pending');
    expect(textOf((await owner.get('/alice/gift/settings')).html)).toContain('A transfer to carol is waiting for them to accept it.');
  });

  test('push mirrors: add (the password never shown), refused interval shown, sync now, remove', async () => {
    const bad = await owner.post('/alice/proj/settings', {
      action: 'push-mirror-add',
      push_mirror_address: 'http://127.0.0.1:9/mirror.git',
      push_mirror_password: 'hunter2-secret',
      push_mirror_interval: '5s',
    });
    expect(bad.status).toBe(400);
    expect(textOf(bad.html)).toContain('the minimum is 10m0s');
    expect(bad.html).toContain('http://127.0.0.1:9/mirror.git');
    expect(bad.html).not.toContain('hunter2-secret');
    const added = await owner.post('/alice/proj/settings', {
      action: 'push-mirror-add',
      push_mirror_address: 'http://127.0.0.1:9/mirror.git',
      push_mirror_username: 'mirror-user',
      push_mirror_password: 'hunter2-secret',
      push_mirror_interval: '1h',
      push_mirror_sync_on_commit: 'on',
    });
    expect(added.status).toBe(303);
    const page = await owner.get('/alice/proj/settings');
    expect(textOf(page.html)).toContain('http://127.0.0.1:9/mirror.git');
    expect(textOf(page.html)).toContain('Every 1h0m0s · on every push');
    expect(page.html).not.toContain('hunter2-secret');
    const [mirror] = await api('GET', '/repos/alice/proj/push_mirrors');
    expect((await owner.post('/alice/proj/settings', { action: 'push-mirror-sync' })).headers.get('location')).toContain(
      'done=mirror-sync',
    );
    const removed = await owner.post('/alice/proj/settings', { action: 'push-mirror-remove', push_mirror: mirror.remote_name });
    expect(removed.headers.get('location')).toContain('done=mirror-removed');
    expect(await api('GET', '/repos/alice/proj/push_mirrors')).toEqual([]);
  });
});

describe('collaborators and teams', () => {
  test('add with a permission, change it, remove; an unknown user is refused on the page', async () => {
    const unknown = await owner.post('/alice/proj/settings/collaboration', { collaborator: 'no-such-user', mode: 'write' });
    expect(unknown.status).toBe(422);
    expect(textOf(unknown.html)).toContain('user does not exist [name: no-such-user]');
    expect(unknown.html).toContain('value="no-such-user"');

    const added = await owner.post('/alice/proj/settings/collaboration', { collaborator: 'carol', mode: 'write' });
    expect(added.headers.get('location')).toBe('/alice/proj/settings/collaboration?done=collaborator-added');
    let page = await owner.get('/alice/proj/settings/collaboration');
    expect(textOf(page.html)).toContain('carol');
    expect((await api('GET', '/repos/alice/proj/collaborators/carol/permission')).permission).toBe('write');
    await owner.post('/alice/proj/settings/collaboration/access_mode', { name: 'carol', mode: 'admin' });
    expect((await api('GET', '/repos/alice/proj/collaborators/carol/permission')).permission).toBe('admin');
    // Carol, now an administrator, reaches the settings.
    expect((await stranger.get('/alice/proj/settings')).status).toBe(200);
    await owner.post('/alice/proj/settings/collaboration/delete', { name: 'carol' });
    page = await owner.get('/alice/proj/settings/collaboration');
    expect(textOf(page.html)).not.toContain('carol');
    expect((await stranger.get('/alice/proj/settings')).status).toBe(403);
  });

  test('an organization’s repository: teams are listed, added and removed', async () => {
    await api('POST', '/orgs', { username: 'acme' });
    const team = await api('POST', '/orgs/acme/teams', { name: 'devs', permission: 'write', units: ['repo.code'] });
    await api('POST', '/orgs/acme/repos', { name: 'tool', auto_init: true });
    expect(textOf((await owner.get('/alice/proj/settings/collaboration')).html)).not.toContain('Teams');
    let page = await owner.get('/acme/tool/settings/collaboration');
    // The organization's Owners team reaches every repository; devs does not yet.
    expect(textOf(page.html)).toContain('Owners owner access · every repository of the organization');
    expect(textOf(page.html)).not.toContain('devs write access');
    expect(page.html).toContain(`<option value="${team.id}">devs</option>`);
    const added = await owner.post('/acme/tool/settings/collaboration/team', { team_id: String(team.id) });
    expect(added.headers.get('location')).toBe('/acme/tool/settings/collaboration?done=team-added');
    page = await owner.get('/acme/tool/settings/collaboration');
    expect(textOf(page.html)).toContain('devs write access');
    await owner.post('/acme/tool/settings/collaboration/team/delete', { team_id: String(team.id) });
    expect((await api('GET', '/repos/acme/tool/teams')).map((t: { name: string }) => t.name)).toEqual(['Owners']);
  });
});

describe('branch protection', () => {
  test('create, list, edit and delete a rule; the default branch; a rule name with markup is inert', async () => {
    const created = await owner.post('/alice/proj/settings/branches/edit', {
      rule_name: 'main',
      enable_push: 'whitelist',
      push_whitelist_usernames: 'alice, bob',
      required_approvals: '2',
      block_on_rejected_reviews: 'on',
      enable_status_check: 'on',
      status_check_contexts: 'ci/build\nci/test',
    });
    expect(created.headers.get('location')).toBe('/alice/proj/settings/branches?done=rule-saved');
    const rule = await api('GET', '/repos/alice/proj/branch_protections/main');
    expect(rule).toMatchObject({
      enable_push: true,
      enable_push_whitelist: true,
      push_whitelist_usernames: ['alice', 'bob'],
      required_approvals: 2,
      block_on_rejected_reviews: true,
      status_check_contexts: ['ci/build', 'ci/test'],
    });
    const list = textOf((await owner.get('/alice/proj/settings/branches')).html);
    expect(list).toContain('main · Only alice, bob may push · 2 approvals required · status checks required');

    const edit = await owner.get('/alice/proj/settings/branches/edit?rule_name=main');
    expect(edit.html).toContain('value="alice, bob"');
    await owner.post('/alice/proj/settings/branches/edit', { original_rule_name: 'main', rule_name: 'main', enable_push: 'none' });
    expect(await api('GET', '/repos/alice/proj/branch_protections/main')).toMatchObject({ enable_push: false, required_approvals: 0 });

    const refused = await owner.post('/alice/proj/settings/branches/edit', { rule_name: 'bad..name', enable_push: 'all' });
    expect(refused.status).toBe(422);
    expect(textOf(refused.html)).toContain('invalid branch name for a protection rule [rule_name: bad..name]');
    expect(refused.html).toContain('value="bad..name"');

    const xss = '<img src=x onerror=alert(1)>*';
    expect((await owner.post('/alice/proj/settings/branches/edit', { rule_name: xss, enable_push: 'all' })).status).toBe(303);
    const page = await owner.get('/alice/proj/settings/branches');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)>*');
    const removed = await owner.post(`/alice/proj/settings/branches/${encodeURIComponent(xss)}/delete`, {});
    expect(removed.headers.get('location')).toBe('/alice/proj/settings/branches?done=rule-removed');
    // A pattern with a slash is one URL segment, percent-encoded.
    expect((await owner.post('/alice/proj/settings/branches/edit', { rule_name: 'release/*', enable_push: 'all' })).status).toBe(303);
    const slashed = await owner.post(`/alice/proj/settings/branches/${encodeURIComponent('release/*')}/delete`, {});
    expect(slashed.headers.get('location')).toBe('/alice/proj/settings/branches?done=rule-removed');
    await owner.post('/alice/proj/settings/branches/main/delete', {});
    expect(await api('GET', '/repos/alice/proj/branch_protections')).toEqual([]);

    await api('POST', '/repos/alice/proj/branches', { new_branch_name: 'develop', old_branch_name: 'main' });
    const moved = await owner.post('/alice/proj/settings/branches', { branch: 'develop' });
    expect(moved.headers.get('location')).toBe('/alice/proj/settings/branches?done=default-branch');
    expect((await repoJson('proj')).body.default_branch).toBe('develop');
    await owner.post('/alice/proj/settings/branches', { branch: 'main' });
  });
});

describe('webhooks', () => {
  test('create (a refusal keeps the form), edit, test delivery in the history, delete; markup in the filter is inert', async () => {
    const bad = await owner.post('/alice/proj/settings/hooks/gitea/new', {
      payload_url: 'not a url',
      events: 'choose_events',
      event: ['push', 'issues'],
      branch_filter: '<b>x</b>',
      active: 'on',
    });
    expect(bad.status).toBe(422);
    expect(textOf(bad.html)).toContain('Invalid url');
    expect(bad.html).toMatch(/id="event-issues" name="event" value="issues" checked/);
    expect(bad.html).toContain('value="&lt;b>x&lt;/b>"');
    const none = await owner.post('/alice/proj/settings/hooks/gitea/new', { payload_url: 'http://127.0.0.1:9/h', events: 'choose_events' });
    expect([none.status, textOf(none.html)]).toEqual([422, expect.stringContaining('Choose at least one event')]);

    const created = await owner.post('/alice/proj/settings/hooks/gitea/new', {
      payload_url: 'http://127.0.0.1:9/hook',
      content_type: 'json',
      secret: 'shh-secret',
      events: 'choose_events',
      event: ['push', 'pull_request_review'],
      branch_filter: 'main',
      active: 'on',
    });
    expect(created.status).toBe(303);
    const [hook] = await api('GET', '/repos/alice/proj/hooks');
    expect(created.headers.get('location')).toBe(`/alice/proj/settings/hooks/${hook.id}?done=hook-added#deliveries-title`);
    expect(hook).toMatchObject({ type: 'gitea', active: true, branch_filter: 'main', config: { url: 'http://127.0.0.1:9/hook' } });
    const page = await owner.get(`/alice/proj/settings/hooks/${hook.id}`);
    expect(page.html).toMatch(/id="event-pull_request_review" name="event" value="pull_request_review" checked/);
    expect(page.html).not.toContain('shh-secret');
    expect(textOf(page.html)).toContain('No deliveries yet.');

    const edited = await owner.post(`/alice/proj/settings/hooks/gitea/${hook.id}`, {
      payload_url: 'http://127.0.0.1:9/other',
      events: 'send_everything',
      branch_filter: '*',
    });
    expect(edited.headers.get('location')).toBe(`/alice/proj/settings/hooks/${hook.id}?done=hook-updated`);
    expect(await api('GET', `/repos/alice/proj/hooks/${hook.id}`)).toMatchObject({
      active: false,
      config: { url: 'http://127.0.0.1:9/other' },
    });

    const tested = await owner.post(`/alice/proj/settings/hooks/${hook.id}/test`, {});
    expect(tested.headers.get('location')).toBe(`/alice/proj/settings/hooks/${hook.id}?done=tested#deliveries-title`);
    const history = await owner.get(`/alice/proj/settings/hooks/${hook.id}?done=tested`);
    expect(textOf(history.html)).toContain('A test delivery has been queued');
    const [delivery] = await api('GET', `/repos/alice/proj/hooks/${hook.id}/deliveries`);
    expect(textOf(history.html)).toContain(delivery.uuid);
    expect(textOf(history.html)).toContain('push');
    const again = await owner.post(`/alice/proj/settings/hooks/${hook.id}/replay/${delivery.uuid}`, {});
    expect(again.headers.get('location')).toBe(`/alice/proj/settings/hooks/${hook.id}?done=redelivered#deliveries-title`);
    expect(textOf((await owner.get(`/alice/proj/settings/hooks/${hook.id}?done=redelivered`)).html)).toContain(
      'The delivery has been queued again.',
    );

    expect(textOf((await owner.get('/alice/proj/settings/hooks')).html)).toContain('http://127.0.0.1:9/other');
    const removed = await owner.post('/alice/proj/settings/hooks/delete', { id: String(hook.id) });
    expect(removed.headers.get('location')).toBe('/alice/proj/settings/hooks?done=hook-removed');
    expect(await api('GET', '/repos/alice/proj/hooks')).toEqual([]);
    expect((await owner.get(`/alice/proj/settings/hooks/${hook.id}`)).status).toBe(404);
  });
});
